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

        /** Replication plus recovery reads (followers rebuilding every coded value to apply it). */
        public double wireRatioWithRecovery() {
            return perWrite(coded.replicationBytes() + coded.recoveryBytes(), coded)
                    / perWrite(full.replicationBytes() + full.recoveryBytes(), full);
        }

        public static double perWrite(long bytes, SimTraffic traffic) {
            return (double) bytes / Math.max(1, traffic.committedWrites());
        }

        public String format() {
            return String.format("%8d | %10.0f %10.0f %6.3f | %10.0f %10.0f %6.3f | %10.0f %6.3f", valueBytes,
                    perWrite(coded.replicationBytes(), coded), perWrite(full.replicationBytes(), full), replicationRatio(),
                    perWrite(coded.logBytes(), coded), perWrite(full.logBytes(), full), logRatio(),
                    perWrite(coded.recoveryBytes(), coded), wireRatioWithRecovery());
        }
    }

    public static final String HEADER = "value B | repl coded  repl full  ratio |  log coded   log full  ratio |"
            + "  recovery  wire+recovery ratio";

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
        long[] sums = new long[6];
        for (SimTraffic t : all) {
            sums[0] += t.replicationBytes();
            sums[1] += t.recoveryBytes();
            sums[2] += t.otherBytes();
            sums[3] += t.logBytes();
            sums[4] += t.committedWrites();
            sums[5] += t.corruptedShards();
        }
        return new SimTraffic(sums[0], sums[1], sums[2], sums[3], sums[4], sums[5]);
    }
}
