package io.synod.bench.report;

/** Fairness measures of a lock run. */
public final class Fairness {

    private Fairness() {
    }

    /**
     * Jain's fairness index (sum x)^2 / (n * sum x^2) of non-negative per-client amounts: 1 when every
     * client has the same amount, 1/n when one client has everything. NaN when all amounts are zero.
     */
    public static double jainIndex(double[] sharePerClient) {
        double sum = 0;
        double sumOfSquares = 0;
        for (double share : sharePerClient) {
            sum += share;
            sumOfSquares += share * share;
        }
        if (sharePerClient.length == 0 || sumOfSquares == 0) {
            return Double.NaN;
        }
        return sum * sum / (sharePerClient.length * sumOfSquares);
    }

    /**
     * Wait-order inversions: among pairs of requests that waited for the lock at the same time (b started
     * asking while a was still waiting), the fraction where b got the lock before a. A FIFO lock scores
     * 0; a lock that grants in random order scores about 0.5. NaN when no two requests ever overlapped.
     *
     * @param acquireStartNanos when each request started asking
     * @param acquiredNanos     when each request got the lock (same index)
     */
    public static double inversionRate(long[] acquireStartNanos, long[] acquiredNanos) {
        if (acquireStartNanos.length != acquiredNanos.length) {
            throw new IllegalArgumentException("arrays differ in length");
        }
        long overlapping = 0;
        long inverted = 0;
        int n = acquireStartNanos.length;
        for (int a = 0; a < n; a++) {
            for (int b = 0; b < n; b++) {
                if (a == b) {
                    continue;
                }
                boolean bAskedWhileAWaited = acquireStartNanos[b] > acquireStartNanos[a]
                        && acquireStartNanos[b] < acquiredNanos[a];
                if (bAskedWhileAWaited) {
                    overlapping++;
                    if (acquiredNanos[b] < acquiredNanos[a]) {
                        inverted++;
                    }
                }
            }
        }
        return overlapping == 0 ? Double.NaN : (double) inverted / overlapping;
    }
}
