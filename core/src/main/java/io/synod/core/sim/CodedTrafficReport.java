package io.synod.core.sim;

import io.synod.core.paxos.Coding;
import java.util.ArrayList;
import java.util.List;

/**
 * Measures, in the simulator, the bytes per committed write of RS-Paxos coded accepts against full
 * copies (plain Multi-Paxos) for one value size: the same seeds, the same write-only workload, no
 * faults, N = 5. Used by the tests and documented in docs/erasure.md ("RS-Paxos in the replica").
 */
public final class CodedTrafficReport {
    /** One value size: bytes per committed write, coded and full copy. */
    public record Row(int valueBytes, SimTraffic coded, SimTraffic full) {
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

        public static double perWrite(long bytes, SimTraffic traffic) {
            return (double) bytes / Math.max(1, traffic.committedWrites());
        }

        public String format() {
            return String.format("| %8d | %9.0f | %9.0f | %5.3f | %9.0f | %9.0f | %5.3f | %9.0f | %9.0f | %9.0f | %9.0f | %5.3f |",
                    valueBytes, perWrite(coded.replicationBytes(), coded), perWrite(full.replicationBytes(), full),
                    replicationRatio(), perWrite(coded.logBytes(), coded), perWrite(full.logBytes(), full), logRatio(),
                    perWrite(coded.catchUpBytes(), coded), perWrite(full.catchUpBytes(), full),
                    perWrite(coded.recoveryBytes(), coded), perWrite(coded.wireBytes(), coded), wireRatio());
        }
    }

    public static final String HEADER = "| value B | phase 2 coded | phase 2 full | ratio | log coded | log full | ratio"
            + " | catch-up coded | catch-up full | recovery coded | all wire coded | all-wire ratio |\n"
            + "|---|---|---|---|---|---|---|---|---|---|---|---|";

    private CodedTrafficReport() {}

    /**
     * Runs {@code seeds} seeds of {@code ops} writes of {@code valueBytes} each (the append note is
     * sized so the whole command is {@code valueBytes}), coded with (N, F, X) and with full copies.
     */
    public static Row measure(int n, int f, int x, int valueBytes, int seeds, int ops) {
        int note = Math.max(0, valueBytes - 30); // The list-append header (tag, key, element, length).
        SimConfig base = SimConfig.defaults(n, FaultProfile.NONE).withOpsPerSeed(ops).withWorkload(4, 4, true, 0, 1_000_000L);
        SimTraffic coded = total(base.withCoding(SimCoding.fixedSize(Coding.rsPaxos(n, f, x, SimCoding.THRESHOLD_BYTES), note)),
                seeds);
        SimTraffic full = total(base.withCoding(SimCoding.fixedSize(Coding.OFF, note)), seeds);
        return new Row(valueBytes, coded, full);
    }

    private static SimTraffic total(SimConfig config, int seeds) {
        List<SimTraffic> all = new ArrayList<>();
        for (long seed = 1; seed <= seeds; seed++) {
            SimResult result = Simulation.run(config.withSeed(seed));
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
