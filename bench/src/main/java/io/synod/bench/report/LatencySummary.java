package io.synod.bench.report;

import java.util.Arrays;

/**
 * Order statistics of a set of latencies, in milliseconds (what the CSVs and plots show).
 * Percentiles use the nearest-rank method, so p99 of fewer than 100 samples is the maximum.
 */
public record LatencySummary(int count, double meanMillis, double medianMillis, double p99Millis, double minMillis,
                             double maxMillis) {

    public static final LatencySummary EMPTY = new LatencySummary(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
            Double.NaN);

    public static LatencySummary ofNanos(long[] latenciesNanos) {
        if (latenciesNanos.length == 0) {
            return EMPTY;
        }
        long[] sorted = latenciesNanos.clone();
        Arrays.sort(sorted);
        double sum = 0;
        for (long value : sorted) {
            sum += value;
        }
        return new LatencySummary(sorted.length, sum / sorted.length / 1e6, percentile(sorted, 50) / 1e6,
                percentile(sorted, 99) / 1e6, sorted[0] / 1e6, sorted[sorted.length - 1] / 1e6);
    }

    /** Nearest-rank percentile of ascending {@code sorted}: the smallest value with at least p% at or below it. */
    public static long percentile(long[] sorted, double percent) {
        if (sorted.length == 0) {
            throw new IllegalArgumentException("no samples");
        }
        int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
        return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
    }

    public boolean isEmpty() {
        return count == 0;
    }
}
