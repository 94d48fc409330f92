package io.synod.coordination;

import static io.synod.coordination.ZkFixture.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.kv.KvStateMachine;
import io.synod.core.paxos.ClientRequest;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.DurableState;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.LeaseHooks;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.QuorumPolicy;
import io.synod.core.paxos.Ready;
import io.synod.core.paxos.Replica;
import io.synod.core.paxos.ReplicaConfig;
import io.synod.core.paxos.Role;
import io.synod.protocol.ClientReply;
import io.synod.protocol.ElectionEvent;
import io.synod.protocol.KvCommand;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;

/**
 * The acceptance case: two nodes both told they lead — one partitioned from ZooKeeper that
 * never hears that it should step down, one elected after the first's session expired — cannot
 * both commit conflicting values, because ballots decide, not ZooKeeper (docs/coordination.md; Lamport, "Paxos Made Simple", §2.2: an acceptor rejects any ballot below its promise).
 *
 * <p>The election events come from the real election service on a real ZooKeeper server; the
 * replicas are core's {@link Replica}, driven on the test thread through the Ready contract with
 * in-memory disks and a network the test controls.
 */
class StaleLeaderSafetyTest {
    private static final int N = 3;
    private static final long TICK_NANOS = 5_000_000L;

    /** Across seeds: the stale leader's concurrent writes that ended acknowledged, and not. */
    private int staleWritesAcknowledged;
    private int staleWritesRefused;

    /** Election events as ZooKeeper produced them, per node, in order. */
    private final List<List<ElectionEvent>> received = new ArrayList<>();

    @Test
    void twoNodesBothToldTheyLeadCannotBothCommit() throws Exception {
        int stale;
        int successor;
        long staleEpoch;
        long successorEpoch;
        try (ZkFixture zk = new ZkFixture()) {
            zk.connect("safety").metadata().createCluster(ClusterSpec.defaults(N).withGroups(1));
            List<ConcurrentLinkedQueue<ElectionEvent>> inbox = new ArrayList<>();
            for (int i = 0; i < N; i++) {
                inbox.add(new ConcurrentLinkedQueue<>());
            }
            // Node 0 reaches ZooKeeper through a link the test cuts; it joins first, so it leads first.
            TcpProxy link = zk.proxy();
            CoordinationOptions options = ZkFixture.options().withSuspendedStepDown(Duration.ofMillis(800));
            List<ElectionService> services = new ArrayList<>();
            for (int i = 0; i < N; i++) {
                String connect = i == 0 ? link.connectString() : zk.server.getConnectString();
                ElectionService election = zk.connect("safety", connect, options).election(i);
                ConcurrentLinkedQueue<ElectionEvent> box = inbox.get(i);
                election.join(0, (group, event) -> box.add(event));
                services.add(election);
                if (i == 0) {
                    eventually("node 0 elected", () -> box.stream().anyMatch(e -> e instanceof ElectionEvent.Elected));
                }
            }
            eventually("followers know node 0", () -> inbox.get(1).contains(new ElectionEvent.LeaderIs(0))
                    && inbox.get(2).contains(new ElectionEvent.LeaderIs(0)));
            stale = 0;
            staleEpoch = services.get(0).epochOf(0);

            link.cut(); // node 0 is partitioned from ZooKeeper, not from its peers
            eventually("a successor is elected after node 0's session expired",
                    () -> inbox.get(1).stream().anyMatch(e -> e instanceof ElectionEvent.Elected)
                            || inbox.get(2).stream().anyMatch(e -> e instanceof ElectionEvent.Elected));
            successor = inbox.get(1).stream().anyMatch(e -> e instanceof ElectionEvent.Elected) ? 1 : 2;
            successorEpoch = services.get(successor).epochOf(0);
            // The service did tell node 0 to stop; the replica below plays a node that missed it.
            assertTrue(inbox.get(0).contains(new ElectionEvent.LeaderIs(-1)), "node 0 was told to step down");
            for (int i = 0; i < N; i++) {
                received.add(List.copyOf(inbox.get(i)));
            }
        }
        assertTrue(successorEpoch > staleEpoch, "successor epoch " + successorEpoch + " > " + staleEpoch);

        // Replay those real events into fresh replicas under many message interleavings.
        for (long seed = 1; seed <= 40; seed++) {
            runScenario(seed, stale, successor, staleEpoch, successorEpoch);
        }
        // The schedules cover both races: the stale leader's accept reaching the third node before the
        // successor's prepare (its write is chosen and kept), and after (the lower ballot is refused).
        assertTrue(staleWritesAcknowledged > 0, "some stale write won its race");
        assertTrue(staleWritesRefused > 0, "some stale write was refused by ballots");
    }

    /**
     * Node {@code stale} leads with its epoch and commits a first write; then it is cut off from
     * {@code successor} (but not from the third node) and never learns it was deposed; the successor
     * is elected with a higher epoch; both take writes at the same time; messages are delivered in a
     * seeded random order. Then the network heals and everything settles.
     */
    private void runScenario(long seed, int stale, int successor, long staleEpoch, long successorEpoch) {
        Group group = new Group(new Random(seed));
        // Up to the partition, every node hears what ZooKeeper said, in order.
        for (int i = 0; i < N; i++) {
            for (ElectionEvent e : received.get(i)) {
                if (i == successor && e instanceof ElectionEvent.Elected) {
                    break; // the successor's election comes later
                }
                group.replicas[i].onElection(e);
                if (i == stale && e instanceof ElectionEvent.Elected) {
                    break; // the stale leader never hears that it was deposed
                }
            }
        }
        assertEquals(new ElectionEvent.Elected(staleEpoch), received.get(stale).stream()
                .filter(e -> e instanceof ElectionEvent.Elected).findFirst().orElseThrow());
        group.settleInOrder();
        assertEquals(Role.LEADER, group.replicas[stale].role(), "seed " + seed);
        group.propose(stale, 1, 1, 100);
        group.settleInOrder();
        assertEquals(ClientReply.Status.OK, group.reply(1, 1).status(), "first write commits, seed " + seed);

        // Both nodes now believe they lead; they cannot talk to each other.
        group.cut(stale, successor);
        group.replicas[successor].onElection(new ElectionEvent.Elected(successorEpoch));
        group.propose(stale, 2, 1, 200);
        group.propose(successor, 3, 1, 300);
        group.propose(stale, 4, 1, 201);
        group.runRandomly(4_000);
        group.propose(successor, 5, 1, 301);
        group.runRandomly(4_000);

        // Heal, and let retransmissions and heartbeats finish the job.
        group.healAll();
        for (int i = 0; i < 400 && !group.converged(); i++) {
            group.tickAll();
            group.settleInOrder();
        }
        assertTrue(group.converged(), "replicas converge, seed " + seed);
        group.checkAgreement(seed);
        // Every acknowledged write is in the final log at the slot its reply named.
        for (ClientReply r : group.replies) {
            if (r.status() == ClientReply.Status.OK) {
                Entry chosen = group.applied.get(successor).get(r.slot());
                assertEquals(r.clientId(), chosen.command().clientId(), "seed " + seed + " slot " + r.slot());
                assertEquals(r.sequence(), chosen.command().sequence(), "seed " + seed + " slot " + r.slot());
            }
        }
        // The successor's writes were acknowledged; the stale leader, deposed by ballots, ended as a follower.
        assertEquals(ClientReply.Status.OK, group.reply(3, 1).status(), "seed " + seed);
        assertEquals(ClientReply.Status.OK, group.reply(5, 1).status(), "seed " + seed);
        for (long client : new long[] {2, 4}) {
            if (group.reply(client, 1).status() == ClientReply.Status.OK) {
                staleWritesAcknowledged++;
            } else {
                staleWritesRefused++;
            }
        }
        assertNotEquals(Role.LEADER, group.replicas[stale].role(), "seed " + seed);
        assertTrue(group.replicas[stale].promised().epoch() >= successorEpoch, "seed " + seed);
    }

    /** Three replicas of one group, an in-memory disk each, and a network the test schedules. */
    private static final class Group {
        final Replica[] replicas = new Replica[N];
        final List<Map<Long, Entry>> applied = new ArrayList<>();
        final List<TreeMap<Long, Entry>> disks = new ArrayList<>();
        final List<Message> inFlight = new ArrayList<>();
        final List<ClientReply> replies = new ArrayList<>();
        final boolean[][] cut = new boolean[N][N];
        final Random random;
        long now;

        Group(Random random) {
            this.random = random;
            for (int i = 0; i < N; i++) {
                replicas[i] = new Replica(ReplicaConfig.defaults(i, N), DurableState.EMPTY, new KvStateMachine(),
                        QuorumPolicy.MAJORITY, LeaseHooks.NONE, now);
                applied.add(new HashMap<>());
                disks.add(new TreeMap<>());
            }
        }

        void cut(int a, int b) {
            cut[a][b] = true;
            cut[b][a] = true;
        }

        void healAll() {
            for (boolean[] row : cut) {
                java.util.Arrays.fill(row, false);
            }
        }

        void propose(int node, long client, long sequence, long element) {
            Command command = new Command(client, sequence, new KvCommand.Append("k", element).encode());
            replicas[node].propose(new ClientRequest(command));
        }

        ClientReply reply(long client, long sequence) {
            ClientReply last = null;
            for (ClientReply r : replies) {
                if (r.clientId() == client && r.sequence() == sequence) {
                    last = r;
                }
            }
            return last == null ? new ClientReply(client, sequence, ClientReply.Status.UNKNOWN, 0, new byte[0], -1) : last;
        }

        /** The Ready contract: apply what it hands out, persist, then send and answer, then advance. */
        private boolean drainReadies() {
            boolean moved = false;
            for (int i = 0; i < N; i++) {
                while (replicas[i].hasReady()) {
                    Ready ready = replicas[i].ready();
                    List<ClientReply> answers = replicas[i].applier().apply(ready);
                    replicas[i].applied(ready);
                    for (Entry e : ready.entries()) {
                        disks.get(i).put(e.slot(), e);
                    }
                    for (Entry e : ready.committedEntries()) {
                        applied.get(i).put(e.slot(), e);
                    }
                    inFlight.addAll(ready.messages());
                    replies.addAll(ready.replies());
                    replies.addAll(answers);
                    replicas[i].advance(ready);
                    moved = true;
                }
            }
            return moved;
        }

        private void deliver(Message m) {
            if (!cut[m.from()][m.to()]) {
                replicas[m.to()].step(m);
            }
        }

        void settleInOrder() {
            for (int round = 0; round < 100_000; round++) {
                boolean moved = drainReadies();
                if (!inFlight.isEmpty()) {
                    deliver(inFlight.remove(0));
                    moved = true;
                }
                if (!moved) {
                    return;
                }
            }
            throw new AssertionError("group did not settle");
        }

        /** Delivers messages in a random order, with occasional ticks (timers: retransmit, heartbeat). */
        void runRandomly(int steps) {
            for (int step = 0; step < steps; step++) {
                drainReadies();
                if (inFlight.isEmpty() || random.nextInt(20) == 0) {
                    tickAll();
                } else {
                    deliver(inFlight.remove(random.nextInt(inFlight.size())));
                }
            }
            drainReadies();
        }

        void tickAll() {
            now += TICK_NANOS;
            for (Replica r : replicas) {
                r.tick(now);
            }
        }

        boolean converged() {
            long applied0 = replicas[0].appliedSlot();
            for (Replica r : replicas) {
                if (r.appliedSlot() != applied0 || r.appliedSlot() < 3) {
                    return false;
                }
            }
            return java.util.Arrays.stream(replicas).filter(r -> r.role() == Role.LEADER).count() == 1;
        }

        /** No slot was applied with two different values anywhere (the safety property). */
        void checkAgreement(long seed) {
            Map<Long, Entry> chosen = new HashMap<>();
            for (int i = 0; i < N; i++) {
                for (Map.Entry<Long, Entry> e : applied.get(i).entrySet()) {
                    Entry first = chosen.putIfAbsent(e.getKey(), e.getValue());
                    if (first != null && !first.command().equals(e.getValue().command())) {
                        throw new AssertionError("seed " + seed + ": slot " + e.getKey() + " chosen twice: "
                                + first.command() + " and " + e.getValue().command() + " (node " + i + ")");
                    }
                }
            }
        }
    }
}
