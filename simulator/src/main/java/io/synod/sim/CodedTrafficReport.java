package io.synod.sim;

import io.synod.core.paxos.Coding;
import io.synod.core.paxos.ReplicaConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * Measures, in the simulator, the bytes per committed write of RS-Paxos coded accepts against full
 * copies (plain Multi-Paxos) for one value size: the same seeds, the same write-only workload, no
 * faults, N = 5. Used by the tests and documented in docs/erasure.md ("RS-Paxos in the replica").
 */
public final class CodedTrafficReport {
    /**
     * One value size: bytes per committed write, coded (followers defer rebuilding), full copy, and coded
     * with followers that rebuild every value to apply it ({@code rebuilding}, the design before deferral).
     */
    public record Row(int valueBytes, SimTraffic coded, SimTraffic full, SimTraffic rebuilding) {
        public double replicationRatio() {
            return perWrite(coded.replicationBytes(), coded) / perWrite(full.replicationBytes(), full);
        }

        public double logRatio() {
            return perWrite(coded.logBytes(), coded) / perWrite(full.logBytes(), full);
        }

        /** Every byte between replicas: phase 2, catch-up, recovery reads (followers rebuilding every coded value to apply it), the rest. */
        public double wireRatio() {
            return perWrite(coded.wireBytes(), coded) / perWrite(full.wireBytes(), full);
        }

        /** {@link #wireRatio()} of coded writes whose followers rebuild every value (recovery reads). */
        public double rebuildingWireRatio() {
            return perWrite(rebuilding.wireBytes(), rebuilding) / perWrite(full.wireBytes(), full);
        }

        public static double perWrite(long bytes, SimTraffic traffic) {
            return (double) bytes / Math.max(1, traffic.committedWrites());
        }

        public String format() {
            return String.format("| %8d | %9.0f | %9.0f | %5.3f | %9.0f | %9.0f | %5.3f | %9.0f | %9.0f | %9.0f | %9.0f | %5.3f | %9.0f | %5.3f |",
                    valueBytes, perWrite(coded.replicationBytes(), coded), perWrite(full.replicationBytes(), full),
                    replicationRatio(), perWrite(coded.logBytes(), coded), perWrite(full.logBytes(), full), logRatio(),
                    perWrite(coded.catchUpBytes(), coded), perWrite(full.catchUpBytes(), full),
                    perWrite(coded.recoveryBytes(), coded), perWrite(coded.wireBytes(), coded), wireRatio(),
                    perWrite(rebuilding.recoveryBytes(), rebuilding), rebuildingWireRatio());
        }
    }

    public static final String HEADER = "| value B | phase 2 coded | phase 2 full | ratio | log coded | log full | ratio"
            + " | catch-up coded | catch-up full | recovery coded | all wire coded | all-wire ratio"
            + " | recovery, rebuilding | all-wire ratio, rebuilding |\n"
            + "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|";

    private CodedTrafficReport() {}

    /**
     * Runs {@code seeds} seeds of {@code ops} writes of {@code valueBytes} each (the append note is
     * sized so the whole command is {@code valueBytes}), coded with (N, F, X) and deferred follower rebuild,
     * with full copies, and coded with followers rebuilding every value.
     */
    public static Row measure(int n, int f, int x, int valueBytes, int seeds, int ops) {
        ReplicaConfig production = ReplicaConfig.defaults(0, n);
        return measure(n, f, x, valueBytes, seeds, ops, production.snapshotEverySlots(), production.logRetainSlots());
    }

    /**
     * {@link #measure(int, int, int, int, int, int)} with every replica snapshotting every {@code snapshotEverySlots}
     * slots (the default is production's 10 000: no snapshot within these runs). With deferred rebuild each
     * snapshot first rebuilds every key still unresolved, so a short interval shows what that costs.
     */
    public static Row measure(int n, int f, int x, int valueBytes, int seeds, int ops, int snapshotEverySlots, int retainSlots) {
        int note = Math.max(0, valueBytes - 30); // The list-append header (tag, key, element, length).
        SimConfig base = SimConfig.defaults(n, FaultProfile.NONE).withOpsPerSeed(ops).withWorkload(4, 4, true, 0, 1_000_000L);
        Coding rsPaxos = Coding.rsPaxos(n, f, x, SimCoding.THRESHOLD_BYTES);
        int[] interval = {snapshotEverySlots, retainSlots};
        SimTraffic coded = total(base.withCoding(SimCoding.fixedSize(rsPaxos.withDeferredRebuild(), note)), seeds, interval);
        SimTraffic full = total(base.withCoding(SimCoding.fixedSize(Coding.OFF, note)), seeds, interval);
        SimTraffic rebuilding = total(base.withCoding(SimCoding.fixedSize(rsPaxos, note)), seeds, interval);
        return new Row(valueBytes, coded, full, rebuilding);
    }

    private static SimTraffic total(SimConfig config, int seeds, int[] snapshotInterval) {
        List<SimTraffic> all = new ArrayList<>();
        for (long seed = 1; seed <= seeds; seed++) {
            SimResult result = Simulation.runWithSnapshotInterval(config.withSeed(seed), snapshotInterval[0], snapshotInterval[1]);
            if (!result.passed()) {
                throw new IllegalStateException("measurement seed failed: " + result.summaryLine());
            }
            all.add(result.traffic());
        }
        long[] sums = new long[7];
        for (SimTraffic t : all) {
            sums[0] += t.replicationBytes();
            sums[1] += t.recoveryBytes();
            sums[2] += t.otherBytes();
            sums[3] += t.logBytes();
            sums[4] += t.committedWrites();
            sums[5] += t.corruptedShards();
            sums[6] += t.catchUpBytes();
        }
        return new SimTraffic(sums[0], sums[6], sums[1], sums[2], sums[3], sums[4], sums[5]);
    }
}
