package io.synod.sim;

import io.synod.core.kv.KvSessions;
import io.synod.core.kv.KvStateMachine;
import io.synod.core.kv.SessionExpiryTimer;
import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.ClientRequest;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.Replica;
import io.synod.core.paxos.Role;
import io.synod.protocol.ClientReply;
import io.synod.protocol.SessionCommand;
import io.synod.protocol.SessionResult;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Sessions under faults: a few clients grant sessions with a short TTL, keep them alive, create ephemeral (and
 * sequential) keys, delete them, revoke, and now and then fall silent for a few TTLs; the leader of the moment's group
 * driver runs its {@link SessionExpiryTimer} after every tick and proposes the expiries through the log, as on a
 * server. Checked on every node
 * after every applied batch:
 *
 * <ul>
 *   <li>the state machine's session invariants ({@link KvSessions#checkInvariants()}): no ephemeral key outlives the
 *       slot at which its session expired, and session key sets match key owners;</li>
 *   <li>sessions are consistent across replicas: the session table and the owned keys at an applied slot are the
 *       same on every replica that applied that slot (a digest per slot, compared as replicas reach it).</li>
 * </ul>
 * The simulation's own final checks then compare whole snapshots, sessions included.
 *
 * <p>{@link Options#followerLocalExpiry()} is the negative control: every follower also expires sessions on its
 * own clock, locally, without the log — the bug that "expiry is decided by the leader, through the log" rules out.
 * The per-slot comparison must catch it.
 */
public final class SessionWorkload implements SimExtension {
    static final long CLIENT_BASE = 0x5E55_1000_0000L;
    private static final long ATTEMPT_TIMEOUT_NANOS = SimTiming.CLIENT_ATTEMPT_TIMEOUT_NANOS;
    private static final int MAX_ATTEMPTS = SimTiming.CLIENT_MAX_ATTEMPTS;
    /** Digests kept for comparison: replicas more than this many slots apart are compared through snapshots only. */
    private static final int MAX_DIGESTS = 50_000;

    /**
     * @param clients             session clients
     * @param ttlMillis           the sessions' TTL (simulated milliseconds)
     * @param followerLocalExpiry the negative control (see the class comment)
     */
    public record Options(int clients, long ttlMillis, boolean followerLocalExpiry) {
        public Options {
            if (clients < 1 || clients > 64 || ttlMillis < 1 || ttlMillis > 10_000) {
                throw new IllegalArgumentException("session workload needs 1..64 clients and a ttl of 1..10000 ms");
            }
        }

        public static Options defaults() {
            return new Options(3, 20, false);
        }

        public Options withFollowerLocalExpiry() {
            return new Options(clients, ttlMillis, true);
        }
    }

    /** What the workload did in one seed (the tests check it exercised what it claims to). */
    public record Stats(int grants, int keepAlives, int creates, int expiriesProposed, int sessionsEndedUnderClient,
                        int localExpiries) {}

    private final Options options;
    private World world;
    private SimRandom random;
    private Client[] clients;
    private SessionExpiryTimer[] rogueTimers;
    private long[] lastCheckedSlot;
    private final TreeMap<Long, Long> digestBySlot = new TreeMap<>();
    private final Map<Long, Integer> digestNode = new TreeMap<>();
    private int grants;
    private int keepAlives;
    private int creates;
    private int sessionsEnded;
    private int localExpiries;
    /** A problem a client saw (reported with the next check). */
    private String clientProblem;

    public SessionWorkload(Options options) {
        this.options = options;
    }

    public Stats stats() {
        return new Stats(grants, keepAlives, creates, (int) world.expiriesProposed(), sessionsEnded, localExpiries);
    }

    @Override
    public void start(World world, SimRandom random) {
        this.world = world;
        this.random = random;
        this.rogueTimers = new SessionExpiryTimer[world.nodes()];
        this.lastCheckedSlot = new long[world.nodes()];
        for (int node = 0; node < world.nodes(); node++) {
            onRestart(node);
        }
        clients = new Client[options.clients()];
        for (int i = 0; i < clients.length; i++) {
            Client client = new Client(i);
            clients[i] = client;
            world.after(random.uniform(0, 5 * SimTiming.MILLIS), client::step);
        }
    }

    @Override
    public void onRestart(int nodeId) {
        if (rogueTimers != null) {
            rogueTimers[nodeId] = new SessionExpiryTimer(nodeId, 16);
            lastCheckedSlot[nodeId] = -1;
        }
    }

    @Override
    public boolean ownsClient(long clientId) {
        return clientId >= CLIENT_BASE && clientId < CLIENT_BASE + options.clients();
    }

    @Override
    public void afterTick(int nodeId, Replica replica, long localNanos) {
        if (!options.followerLocalExpiry() || !world.acceptingWork() || replica.role() == Role.LEADER) {
            return;
        }
        // The bug: a follower decides expiry on its own clock and applies it to its own state, off the log.
        KvStateMachine machine = (KvStateMachine) replica.stateMachine();
        for (Command expire : rogueTimers[nodeId].poll(new Ballot(1, nodeId), localNanos, machine.sessions())) {
            machine.apply(replica.appliedSlot(), expire.payload());
            localExpiries++;
        }
    }

    @Override
    public String afterApplied(int nodeId, Replica replica, List<Entry> applied) {
        if (clientProblem != null) {
            return clientProblem;
        }
        long slot = replica.appliedSlot();
        if (slot == lastCheckedSlot[nodeId]) {
            return null;
        }
        lastCheckedSlot[nodeId] = slot;
        KvSessions sessions = ((KvStateMachine) replica.stateMachine()).sessions();
        try {
            sessions.checkInvariants();
        } catch (IllegalStateException e) {
            return "node " + nodeId + " at slot " + slot + ": " + e.getMessage();
        }
        long digest = digest(sessions);
        Long seen = digestBySlot.get(slot);
        if (seen == null) {
            digestBySlot.put(slot, digest);
            digestNode.put(slot, nodeId);
            if (digestBySlot.size() > MAX_DIGESTS) {
                digestNode.remove(digestBySlot.pollFirstEntry().getKey());
            }
        } else if (seen != digest) {
            return "sessions diverge at slot " + slot + ": node " + nodeId + " holds " + describe(sessions)
                    + ", node " + digestNode.get(slot) + " held other sessions or owned keys at that slot";
        }
        return null;
    }

    private static long digest(KvSessions sessions) {
        long h = 0x5E55;
        for (KvSessions.Session s : sessions.sessions()) {
            h = SimRandom.splitMix64(h ^ s.id());
            h = SimRandom.splitMix64(h ^ s.renewSlot());
            h = SimRandom.splitMix64(h ^ s.ttlMillis() ^ ((long) s.keyCount() << 32));
        }
        for (Map.Entry<String, Long> owned : sessions.ownedKeys().entrySet()) {
            h = SimRandom.splitMix64(h ^ owned.getKey().hashCode() ^ (owned.getValue() << 20));
        }
        return h;
    }

    private static String describe(KvSessions sessions) {
        StringBuilder out = new StringBuilder("sessions [");
        for (KvSessions.Session s : sessions.sessions()) {
            out.append(' ').append(s.id()).append("(renew ").append(s.renewSlot()).append(", ").append(s.keyCount()).append(" keys)");
        }
        return out.append(" ]").toString();
    }

    @Override
    public void onReply(int fromNode, ClientReply reply) {
        clients[(int) (reply.clientId() - CLIENT_BASE)].onReply(reply);
    }

    /** One session client: one request outstanding at a time, retried (same sequence) until answered. */
    private final class Client {
        final int index;
        final long clientId;
        long sequence;
        long session;
        SessionCommand outstanding;
        int attempts;
        int target;
        int keys;
        boolean stopped;

        Client(int index) {
            this.index = index;
            this.clientId = CLIENT_BASE + index;
            this.target = random.nextInt(world.nodes());
        }

        long ttlNanos() {
            return options.ttlMillis() * SimTiming.MILLIS;
        }

        void step() {
            if (stopped || outstanding != null) {
                return;
            }
            if (!world.acceptingWork()) {
                stopped = true;
                return;
            }
            SessionCommand next;
            String ownKey = "/s/c" + index + "/k" + random.nextInt(Math.max(1, keys));
            if (session == 0) {
                next = new SessionCommand.Grant(options.ttlMillis());
            } else {
                int roll = random.nextInt(100);
                if (roll < 4) {
                    // Fall silent for 2..4 TTLs: the leader must expire the session, through the log.
                    world.after(random.uniform(2 * ttlNanos(), 4 * ttlNanos()), this::step);
                    return;
                } else if (roll < 20) {
                    boolean sequential = random.chance(0.5);
                    next = new SessionCommand.Create(sequential ? "/s/q-" : "/s/c" + index + "/k" + keys++, new byte[] {(byte) index},
                            session, sequential);
                } else if (roll < 28) {
                    next = new SessionCommand.DeleteIf(ownKey, SessionCommand.ANY_TOKEN);
                } else if (roll < 30) {
                    next = new SessionCommand.Revoke(session);
                } else {
                    next = new SessionCommand.KeepAlive(session);
                }
            }
            outstanding = next;
            sequence++;
            attempts = 0;
            transmit(sequence);
        }

        void transmit(long seq) {
            if (outstanding == null || seq != sequence) {
                return;
            }
            if (++attempts > MAX_ATTEMPTS) {
                outstanding = null; // outcome unknown; the next command has a new sequence
                world.after(random.uniform(0, SimTiming.CLIENT_BACKOFF_MAX_NANOS), this::step);
                return;
            }
            world.send(target, new ClientRequest(new Command(clientId, seq, outstanding.encode())));
            world.after(ATTEMPT_TIMEOUT_NANOS, () -> {
                if (outstanding != null && sequence == seq && attempts > 0) {
                    target = random.nextInt(world.nodes());
                    transmit(seq);
                }
            });
        }

        void onReply(ClientReply reply) {
            if (outstanding == null || reply.sequence() != sequence) {
                return;
            }
            long seq = sequence;
            switch (reply.status()) {
                case OK -> completed(SessionResult.decode(reply.result()), reply.slot());
                case NOT_LEADER -> {
                    target = reply.leaderHint() >= 0 && reply.leaderHint() < world.nodes() ? reply.leaderHint() : random.nextInt(world.nodes());
                    world.after(random.uniform(0, SimTiming.MILLIS), () -> transmit(seq));
                }
                case UNKNOWN, BUSY -> world.after(random.uniform(0, SimTiming.CLIENT_BACKOFF_MAX_NANOS), () -> transmit(seq));
                default -> {
                    // REJECTED or STALE_SEQUENCE: a codec or at-most-once bug; give up on this command.
                    outstanding = null;
                    world.after(random.uniform(0, SimTiming.CLIENT_BACKOFF_MAX_NANOS), this::step);
                }
            }
        }

        void completed(SessionResult result, long slot) {
            SessionCommand done = outstanding;
            outstanding = null;
            if (result instanceof SessionResult.Created created && created.token() != slot && clientProblem == null) {
                // The fencing token of a created key is the slot of the write that created it.
                clientProblem = "client " + index + ": key " + created.key() + " created with token " + created.token()
                        + " but the write's reply names slot " + slot;
            }
            if (result instanceof SessionResult.Granted granted) {
                session = granted.sessionId();
                grants++;
            } else if (result instanceof SessionResult.NoSession) {
                if (session != 0) {
                    sessionsEnded++;
                }
                session = 0;
            } else if (done instanceof SessionCommand.Revoke) {
                session = 0;
            } else if (done instanceof SessionCommand.KeepAlive) {
                keepAlives++;
            } else if (result instanceof SessionResult.Created) {
                creates++;
            }
            world.after(random.uniform(ttlNanos() / 8, ttlNanos() / 4), this::step);
        }
    }
}
