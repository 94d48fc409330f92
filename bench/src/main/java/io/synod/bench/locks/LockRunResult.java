package io.synod.bench.locks;

import io.synod.bench.report.Fairness;
import io.synod.bench.report.LatencySummary;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Summary of one lock run: latency order statistics, throughput, fairness and a mutual-exclusion check.
 *
 * @param acquire               client's acquire call to grant
 * @param waitIncludingBacklog  request arrival to grant (adds the time it waited for an idle client)
 * @param throughputPerSecond   completed critical sections per second, first arrival to last release
 * @param jainIndex             Jain's index over the clients' mean acquire latencies (1 = every client waited
 *                              the same on average). Not over acquisition counts: the workload hands requests
 *                              to clients longest-idle first, so counts are equal by construction and say
 *                              nothing about the lock.
 * @param inversionRate         fraction of overlapping waits granted out of asking order (0 = FIFO)
 * @param exclusionViolations   grants observed before the previous holder's critical section ended
 * @param tokenOrderViolations  grants whose fencing token was not larger than the previous holder's
 */
public record LockRunResult(LockWorkloadSpec spec, int clientCount, int completed, int timeouts, int errors,
                            int unfinished, LatencySummary acquire, LatencySummary waitIncludingBacklog,
                            double throughputPerSecond, double jainIndex, double inversionRate,
                            int exclusionViolations, int tokenOrderViolations, String firstError,
                            List<LockRequestRecord> requests, long runStartNanos) {

    static LockRunResult of(LockWorkloadSpec spec, int clientCount, long runStartNanos, LockRequestRecord[] records,
                            boolean allFinished) {
        List<LockRequestRecord> ok = new ArrayList<>();
        int timeouts = 0;
        int errors = 0;
        int unfinished = 0;
        String firstError = null;
        for (LockRequestRecord record : records) {
            switch (record.outcome) {
                case OK -> ok.add(record);
                case TIMEOUT -> timeouts++;
                case ERROR -> {
                    errors++;
                    if (firstError == null) {
                        firstError = record.error;
                    }
                }
                case UNFINISHED -> unfinished++;
            }
        }
        long[] acquireNanos = ok.stream().mapToLong(r -> r.acquiredNanos - r.acquireStartNanos).toArray();
        long[] waitNanos = ok.stream().mapToLong(r -> r.acquiredNanos - r.arrivalNanos).toArray();
        double throughput = Double.NaN;
        if (!ok.isEmpty()) {
            long first = Arrays.stream(records).mapToLong(r -> r.arrivalNanos).filter(t -> t > 0).min().orElse(0);
            long last = ok.stream().mapToLong(r -> r.releasedNanos).max().orElse(first);
            throughput = last > first ? ok.size() / ((last - first) / 1e9) : Double.NaN;
        }
        double[] acquireSumPerClient = new double[clientCount];
        int[] acquisitionsPerClient = new int[clientCount];
        for (LockRequestRecord record : ok) {
            acquireSumPerClient[record.clientIndex] += record.acquiredNanos - record.acquireStartNanos;
            acquisitionsPerClient[record.clientIndex]++;
        }
        double[] meanAcquirePerClient = IntStream.range(0, clientCount)
                .filter(k -> acquisitionsPerClient[k] > 0)
                .mapToDouble(k -> acquireSumPerClient[k] / acquisitionsPerClient[k])
                .toArray();
        double jain = Fairness.jainIndex(meanAcquirePerClient);
        double inversions = Fairness.inversionRate(ok.stream().mapToLong(r -> r.acquireStartNanos).toArray(),
                ok.stream().mapToLong(r -> r.acquiredNanos).toArray());
        List<LockRequestRecord> byGrant = new ArrayList<>(ok);
        byGrant.sort(Comparator.comparingLong(r -> r.acquiredNanos));
        int exclusionViolations = 0;
        int tokenViolations = 0;
        for (int i = 1; i < byGrant.size(); i++) {
            LockRequestRecord previous = byGrant.get(i - 1);
            LockRequestRecord current = byGrant.get(i);
            // Observed grant is no earlier than the real grant; observed section end no later than the
            // real release: so this inequality proves two holders at once.
            if (current.acquiredNanos < previous.criticalSectionEndNanos) {
                exclusionViolations++;
            }
            if (current.fencingToken <= previous.fencingToken) {
                tokenViolations++;
            }
        }
        if (!allFinished && firstError == null && unfinished > 0) {
            firstError = unfinished + " request(s) unfinished at the run's time bound";
        }
        return new LockRunResult(spec, clientCount, ok.size(), timeouts, errors, unfinished,
                LatencySummary.ofNanos(acquireNanos), LatencySummary.ofNanos(waitNanos), throughput, jain, inversions,
                exclusionViolations, tokenViolations, firstError, List.of(records), runStartNanos);
    }
}
