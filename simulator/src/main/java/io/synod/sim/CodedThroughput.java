package io.synod.sim;

import io.synod.core.kv.KvStateMachine;
import io.synod.core.paxos.ClientRequest;
import io.synod.core.paxos.Coding;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.LeaseHooks;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.QuorumPolicy;
import io.synod.core.paxos.Ready;
import io.synod.core.paxos.ReadyLoop;
import io.synod.core.paxos.Replica;
import io.synod.core.paxos.ReplicaConfig;
import io.synod.core.util.Check;
import io.synod.protocol.ClientReply;
import io.synod.protocol.ElectionEvent;
import io.synod.protocol.KvCommand;
import java.util.Arrays;

/**
 * The RS-Paxos throughput experiment in simulated time (Mu et al., HPDC 2014, §5, Fig. 5/6): N
 * production {@link Replica}s whose every directed link has a bandwidth ({@link LinkBandwidth}:
 * FIFO, serialization delay = bytes / rate) and a one-way latency of RTT/2 ± jitter/2 (uniform per
 * message, delivery in order per link, as over one TCP connection); closed-loop clients write
 * values of one size to the leader, and the experiment counts the writes acknowledged in a
 * measurement window after a warm-up, once with full copies (plain Multi-Paxos, majorities) and
 * once coded (RS-Paxos (N, F, X), every value coded, followers deferring the rebuild of values until a
 * snapshot needs them: {@link io.synod.core.paxos.Coding#withDeferredRebuild()}). No faults: this measures throughput, the
 * fault simulator ({@link Simulation}) checks safety.
 *
 * <p>What is modelled: the replica links (bandwidth, queueing, latency), the replicas' own
 * batching, pipelining, retransmission, catch-up and recovery reads. What is not: CPU time
 * (encoding, decoding and checksums take no simulated time, so coding costs nothing here; the
 * real-server bench {@code synod bench coded} includes it), and disks (1 ms per fsync whatever its
 * size). Client links are not bandwidth-limited (only replica links are, as in the paper's figure).
 * Message sizes are {@link SimTraffic#bytes}, the simulator's model of a compact encoding.
 *
 * <p>After the window, clients stop and the group gets a bounded drain period; the run reports
 * whether every replica then applied the same log into the same state ({@link Run#converged()}).
 */
public final class CodedThroughput {
    private static final long MILLIS = 1_000_000L;
    private static final long SECONDS = 1_000_000_000L;
    private static final long FSYNC_NANOS = 1 * MILLIS;
    private static final long TICK_NANOS = 2 * MILLIS;
    private static final long CLIENT_ONE_WAY_NANOS = 100_000L;
    private static final long CLIENT_RETRY_NANOS = 20 * MILLIS;
    private static final long CLIENT_ATTEMPT_TIMEOUT_NANOS = 20 * SECONDS;
    private static final long START_CLIENTS_NANOS = 1 * SECONDS;
    private static final long DRAIN_NANOS = 30 * SECONDS;

    /**
     * One experiment.
     *
     * @param nodes              replicas, N
     * @param failures           F (coded run: Q_R = N − F)
     * @param dataShards         X, data shards of a coded value (coded run: Q_W = N − Q_R + X)
     * @param valueBytes         size of every client command (a Put whose value fills it), at most 1 MiB
     * @param linkBitsPerSecond  bandwidth of every directed replica link
     * @param rttNanos           median round-trip time between replicas
     * @param jitterNanos        RTT spread: the RTT varies uniformly within ± jitter/2 (each one-way latency is
     *                           RTT/2 ± jitter/4, uniform per message)
     * @param clients            closed-loop writers (each has one write outstanding, on its own key)
     * @param warmupNanos        simulated time after the clients start before counting
     * @param measureNanos       the counting window
     * @param seed               the only randomness (latency jitter)
     */
    public record Params(int nodes, int failures, int dataShards, int valueBytes, long linkBitsPerSecond, long rttNanos,
            long jitterNanos, int clients, long warmupNanos, long measureNanos, long seed) {
        public Params {
            Check.argument(nodes >= SimConfig.MIN_NODES && nodes <= SimConfig.MAX_NODES, "nodes must be %d..%d, got %d",
                    SimConfig.MIN_NODES, SimConfig.MAX_NODES, nodes);
            Coding.rsPaxos(nodes, failures, dataShards, 1); // Checks X <= N - 2F and the rest.
            Check.argument(valueBytes >= 64 && valueBytes <= 1 << 20, "valueBytes must be 64..%d, got %d", 1 << 20, valueBytes);
            Check.argument(linkBitsPerSecond >= 1 && linkBitsPerSecond <= LinkBandwidth.MAX_BITS_PER_SECOND,
                    "linkBitsPerSecond must be 1..%d, got %d", LinkBandwidth.MAX_BITS_PER_SECOND, linkBitsPerSecond);
            Check.argument(rttNanos >= 0 && rttNanos <= 10 * SECONDS, "rttNanos must be 0..10 s, got %d", rttNanos);
            Check.argument(jitterNanos >= 0 && jitterNanos <= rttNanos, "jitterNanos must be 0..rtt, got %d", jitterNanos);
            Check.argument(clients >= 1 && clients <= 1024, "clients must be 1..1024, got %d", clients);
            Check.argument(warmupNanos >= 0 && warmupNanos <= 600 * SECONDS, "warm-up must be 0..600 s, got %d ns", warmupNanos);
            Check.argument(measureNanos >= 100 * MILLIS && measureNanos <= 600 * SECONDS,
                    "measured time must be 0.1..600 s, got %d ns", measureNanos);
        }

        /**
         * The paper's setting (Fig. 5/6): N = 5, F = 1, X = 3, 500 Mbit/s links, RTT 100 ± 20 ms;
         * 32 writers, 2 s warm-up, 10 s measured.
         */
        public static Params paper(int valueBytes) {
            return new Params(5, 1, 3, valueBytes, 500_000_000L, 100 * MILLIS, 40 * MILLIS, 32, 2 * SECONDS, 10 * SECONDS, 1);
        }

        public Params withValueBytes(int bytes) {
            return new Params(nodes, failures, dataShards, bytes, linkBitsPerSecond, rttNanos, jitterNanos, clients, warmupNanos,
                    measureNanos, seed);
        }

        public Params withTiming(long warmup, long measure) {
            return new Params(nodes, failures, dataShards, valueBytes, linkBitsPerSecond, rttNanos, jitterNanos, clients, warmup,
                    measure, seed);
        }

        public Params withLinks(long bitsPerSecond, long rtt, long jitter) {
            return new Params(nodes, failures, dataShards, valueBytes, bitsPerSecond, rtt, jitter, clients, warmupNanos,
                    measureNanos, seed);
        }

        public Params withClients(int count) {
            return new Params(nodes, failures, dataShards, valueBytes, linkBitsPerSecond, rttNanos, jitterNanos, count,
                    warmupNanos, measureNanos, seed);
        }

        public Params withSeed(long newSeed) {
            return new Params(nodes, failures, dataShards, valueBytes, linkBitsPerSecond, rttNanos, jitterNanos, clients,
                    warmupNanos, measureNanos, newSeed);
        }
    }

    /**
     * One run (one mode).
     *
     * @param writes              writes acknowledged inside the window
     * @param writesPerSecond     writes / window
     * @param peerBytesPerWrite   bytes put on replica links during the window, per acknowledged write
     * @param busiestLinkBytesPerWrite  the busiest directed link's bytes during the window, per write
     * @param meanLatencyNanos    mean client-observed latency of the counted writes
     * @param converged           every replica applied the same log into the same state after the drain
     */
    public record Run(long writes, double writesPerSecond, double peerBytesPerWrite, double busiestLinkBytesPerWrite,
            double meanLatencyNanos, boolean converged) {}

    /** Full copies and coded at one value size. */
    public record Row(Params params, Run full, Run coded) {
        public double throughputRatio() {
            return coded.writesPerSecond() / Math.max(1e-9, full.writesPerSecond());
        }

        public double byteRatio() {
            return coded.peerBytesPerWrite() / Math.max(1e-9, full.peerBytesPerWrite());
        }

        public String format() {
            return String.format("| %8d | %8.1f | %8.1f | %5.2f× | %9.0f | %9.0f | %5.3f× | %6.0f | %6.0f |", params.valueBytes(),
                    full.writesPerSecond(), coded.writesPerSecond(), throughputRatio(), full.peerBytesPerWrite(),
                    coded.peerBytesPerWrite(), byteRatio(), full.meanLatencyNanos() / MILLIS, coded.meanLatencyNanos() / MILLIS);
        }
    }

    public static final String HEADER = "| value B | full writes/s | coded writes/s | throughput ratio | full peer B/write"
            + " | coded peer B/write | byte ratio | full ms | coded ms |\n|---|---|---|---|---|---|---|---|---|";

    private CodedThroughput() {}

    /** Runs full copies, then coded, with the same parameters and seed. */
    public static Row measure(Params params) {
        Run full = run(params, false);
        Run coded = run(params, true);
        return new Row(params, full, coded);
    }

    /** One run: coded (RS-Paxos (N, F, X), threshold 1 byte: every client value is coded) or full copies. */
    public static Run run(Params params, boolean coded) {
        return new Experiment(params, coded).execute();
    }

    /** The latency of one message: RTT/2 ± jitter/4, uniform. */
    static long oneWayNanos(Params params, SimRandom random) {
        long half = params.rttNanos() / 2;
        long spread = params.jitterNanos() / 2; // RTT ± jitter/2 is one-way ± jitter/4 each way.
        return half + (spread == 0 ? 0 : random.uniform(-spread / 2, spread / 2));
    }

    private static final class Experiment {
        private final Params params;
        private final Coding coding;
        private final EventQueue queue = new EventQueue(1_000_000);
        private final SimRandom random;
        private final LinkBandwidth links;
        private final long[][] lastArrivalNanos;
        private final SimDisk[] disks;
        private final Replica[] replicas;
        private final ReadyLoop[] loops;
        private final int leader = 0;
        private final long windowStart;
        private final long windowEnd;
        private final long[] clientSequence;
        private final long[] clientSentNanos;
        private final byte[][] clientValue;
        private long counted;
        private long latencySum;
        private long bytesAtWindowStart = -1;
        private long bytesAtWindowEnd = -1;
        private long[][] linkBytesAtWindowStart;
        private long busiestInWindow;
        private boolean stopped;

        Experiment(Params params, boolean coded) {
            this.params = params;
            // Coded runs defer follower rebuild (docs/erasure.md): followers keep their shard and rebuild a value
            // only when something needs its bytes (here: before each snapshot, every 200 slots).
            this.coding = coded ? Coding.rsPaxos(params.nodes(), params.failures(), params.dataShards(), 1).withDeferredRebuild()
                    : Coding.OFF;
            this.random = SimRandom.stream(params.seed(), "throughput");
            this.links = new LinkBandwidth(params.nodes(), params.linkBitsPerSecond());
            this.lastArrivalNanos = new long[params.nodes()][params.nodes()];
            this.disks = new SimDisk[params.nodes()];
            this.replicas = new Replica[params.nodes()];
            this.loops = new ReadyLoop[params.nodes()];
            this.windowStart = START_CLIENTS_NANOS + params.warmupNanos();
            this.windowEnd = windowStart + params.measureNanos();
            this.clientSequence = new long[params.clients()];
            this.clientSentNanos = new long[params.clients()];
            this.clientValue = new byte[params.clients()][];
            int overhead = new KvCommand.Put(key(0), new byte[0]).encode().length;
            int valueLength = Math.max(0, params.valueBytes() - overhead);
            for (int c = 0; c < params.clients(); c++) {
                clientValue[c] = new byte[valueLength];
                long state = random.nextLong();
                for (int i = 0; i < valueLength; i += 8) {
                    state = SimRandom.splitMix64(state);
                    for (int b = 0; b < 8 && i + b < valueLength; b++) {
                        clientValue[c][i + b] = (byte) (state >>> (8 * b));
                    }
                }
            }
        }

        private static String key(int client) {
            return String.format("c%07d", client);
        }

        Run execute() {
            QuorumPolicy quorum = coding.enabled() ? coding.quorum() : QuorumPolicy.MAJORITY;
            for (int i = 0; i < params.nodes(); i++) {
                int node = i;
                disks[i] = new SimDisk(false);
                replicas[i] = new Replica(replicaConfig(i), disks[i].state(), new KvStateMachine(), quorum, LeaseHooks.NONE,
                        coding, 0);
                loops[i] = new ReadyLoop(replicas[i], new Sink(node));
                queue.after(TICK_NANOS + node * 100_000L, () -> tick(node));
            }
            for (int i = 0; i < params.nodes(); i++) {
                int node = i;
                ElectionEvent event = i == leader ? new ElectionEvent.Elected(1) : new ElectionEvent.LeaderIs(leader);
                queue.after(MILLIS, () -> {
                    replicas[node].onElection(event);
                    loops[node].drive();
                });
            }
            for (int c = 0; c < params.clients(); c++) {
                int client = c;
                queue.after(START_CLIENTS_NANOS + c * 10_000L, () -> write(client));
            }
            queue.at(windowStart, () -> {
                bytesAtWindowStart = links.totalBytesSent();
                linkBytesAtWindowStart = linkBytes();
            });
            queue.at(windowEnd, () -> {
                bytesAtWindowEnd = links.totalBytesSent();
                long[][] now = linkBytes();
                for (int a = 0; a < now.length; a++) {
                    for (int b = 0; b < now.length; b++) {
                        busiestInWindow = Math.max(busiestInWindow, now[a][b] - linkBytesAtWindowStart[a][b]);
                    }
                }
                stopped = true;
            });
            long end = windowEnd + DRAIN_NANOS;
            while (!queue.isEmpty() && queue.now() <= end) {
                queue.fireNext();
                if (stopped && queue.now() > windowEnd && converged()) {
                    break;
                }
            }
            double seconds = params.measureNanos() / 1e9;
            long writes = counted;
            double perWrite = Math.max(1, writes);
            return new Run(writes, writes / seconds, (bytesAtWindowEnd - bytesAtWindowStart) / perWrite,
                    busiestInWindow / perWrite, writes == 0 ? 0 : (double) latencySum / writes, converged());
        }

        private long[][] linkBytes() {
            long[][] bytes = new long[params.nodes()][params.nodes()];
            for (int a = 0; a < bytes.length; a++) {
                for (int b = 0; b < bytes.length; b++) {
                    bytes[a][b] = links.bytesSent(a, b);
                }
            }
            return bytes;
        }

        /** Every replica applied through the leader's commit point, into the same state. */
        private boolean converged() {
            long commit = replicas[leader].commitSlot();
            for (Replica replica : replicas) {
                if (replica.appliedSlot() != commit) {
                    return false;
                }
            }
            // States are compared resolved: every value a replica applied without rebuilding it is rebuilt
            // first (after the measured window, so it is not counted as the writes' traffic).
            boolean unresolved = false;
            for (int i = 0; i < replicas.length; i++) {
                if (replicas[i].unresolvedSlots() > 0) {
                    replicas[i].resolveDeferred();
                    loops[i].drive();
                    unresolved = true;
                }
            }
            if (unresolved) {
                return false;
            }
            byte[] reference = replicas[leader].stateMachine().snapshot();
            for (Replica replica : replicas) {
                if (!Arrays.equals(reference, replica.stateMachine().snapshot())) {
                    return false;
                }
            }
            return true;
        }

        private ReplicaConfig replicaConfig(int node) {
            // WAN timers: accepts may wait behind many whole values on a capped link and nothing is
            // lost here, so they are retransmitted only after 10 s; snapshots bound the simulated logs.
            return ReplicaConfig.defaults(node, params.nodes()).toBuilder()
                    .heartbeatIntervalNanos(50 * MILLIS)
                    .retransmitIntervalNanos(10 * SECONDS)
                    .phase1TimeoutNanos(10 * SECONDS)
                    .checkQuorumNanos(10 * SECONDS)
                    .snapshotEverySlots(200)
                    .logRetainSlots(100)
                    // Snapshots by slots only, as the experiment's rows were measured: at production's 32 MiB byte
                    // bound the full-copy runs would snapshot every 32 values of 1000 KiB (coded runs, which defer
                    // rebuild, snapshot by slots only anyway: docs/server.md, "The log between snapshots").
                    .snapshotEveryBytes(Long.MAX_VALUE)
                    .build();
        }

        private void tick(int node) {
            replicas[node].tick(queue.now());
            loops[node].drive();
            queue.after(TICK_NANOS, () -> tick(node));
        }

        private void write(int client) {
            if (stopped) {
                return;
            }
            clientSequence[client]++;
            clientSentNanos[client] = queue.now();
            send(client);
        }

        private void send(int client) {
            byte[] value = clientValue[client];
            long sequence = clientSequence[client];
            for (int b = 0; b < 8 && b < value.length; b++) {
                value[b] = (byte) (sequence >>> (8 * b)); // Every write a different value.
            }
            byte[] payload = new KvCommand.Put(key(client), value.clone()).encode();
            ClientRequest request = new ClientRequest(new Command(client + 1L, sequence, payload));
            queue.after(CLIENT_ONE_WAY_NANOS, () -> {
                replicas[leader].propose(request);
                loops[leader].drive();
            });
            queue.after(CLIENT_ATTEMPT_TIMEOUT_NANOS, () -> {
                if (clientSequence[client] == sequence && !stopped) {
                    send(client); // Unanswered: the same command again (the replica applies it at most once).
                }
            });
        }

        private void onReply(ClientReply reply) {
            int client = (int) reply.clientId() - 1;
            if (client < 0 || client >= params.clients() || reply.sequence() != clientSequence[client]) {
                return;
            }
            if (reply.status() != ClientReply.Status.OK) {
                queue.after(CLIENT_RETRY_NANOS, () -> {
                    if (reply.sequence() == clientSequence[client] && !stopped) {
                        send(client);
                    }
                });
                return;
            }
            long now = queue.now();
            if (now >= windowStart && now < windowEnd) {
                counted++;
                latencySum += now - clientSentNanos[client];
            }
            write(client); // The next sequence: a late duplicate reply to this one is ignored.
        }

        private void deliver(Message message) {
            replicas[message.to()].step(message);
            loops[message.to()].drive();
        }

        private final class Sink implements ReadyLoop.Sink {
            private final int node;

            Sink(int node) {
                this.node = node;
            }

            @Override
            public boolean persist(Ready ready) {
                queue.after(FSYNC_NANOS, () -> {
                    disks[node].persist(ready);
                    loops[node].persisted(ready);
                });
                return false;
            }

            @Override
            public void compactThrough(long slot) {
                disks[node].compactThrough(slot);
            }

            @Override
            public void send(Message message) {
                int from = message.from();
                int to = message.to();
                long now = queue.now();
                long arrival = now + links.send(from, to, now, SimTraffic.bytes(message)) + oneWayNanos(params, random);
                arrival = Math.max(arrival, lastArrivalNanos[from][to]); // In order, as over one TCP connection.
                lastArrivalNanos[from][to] = arrival;
                queue.at(arrival, () -> Experiment.this.deliver(message));
            }

            @Override
            public void reply(ClientReply reply) {
                queue.after(CLIENT_ONE_WAY_NANOS, () -> onReply(reply));
            }

            @Override
            public void resign() {
                // The leader is fixed and nothing fails: no resignation is expected, and none is acted on.
            }
        }
    }
}
