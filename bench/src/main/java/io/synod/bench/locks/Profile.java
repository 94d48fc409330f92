package io.synod.bench.locks;

import java.time.Duration;
import java.util.List;

/**
 * Grid and sample sizes of one run of the experiments. {@link #quick()} fits in under ten minutes on a
 * two-core machine by choosing axes that share points (every shared point is measured once; its RTT sweeps
 * and its contention sweeps keep only their end points, which the other experiments partly share);
 * {@link #full()} is the paper-sized grid, which takes hours.
 *
 * <p>Fixed workload parameters come from the seed paper: lock grid and RTT sweeps use exponential
 * inter-arrival with mean 500 ms and exponential critical sections with mean 1 ms; the high-RTT
 * contention sweep uses client RTT 100 ms and inter-arrival 200 ms; high contention is critical section
 * 150 ms at inter-arrival 200 ms.
 */
public record Profile(String name,
                      List<Integer> baselineClientRttsMillis, int baselineOps, int asyncWindow,
                      List<Integer> createGridClientRttsMillis, List<Integer> createGridServerRttsMillis, int createOps,
                      List<Integer> lockGridClientRttsMillis, List<Integer> lockGridServerRttsMillis,
                      int serverSweepClientRttMillis, List<Integer> serverSweepServerRttsMillis,
                      int highClientRttMillis, int lowClientRttMillis, int contentionInterArrivalMillis,
                      List<Integer> contentionServiceMillis,
                      List<Integer> rttSweepClientRttsMillis,
                      int lowContentionInterArrivalMillis, int lowContentionServiceMillis,
                      int highContentionInterArrivalMillis, int highContentionServiceMillis,
                      int lockRequestsPerRun, Duration acquireTimeout, Duration runTimeout) {

    public static Profile quick() {
        return new Profile("quick",
                List.of(0, 20), 50, 8,
                List.of(0, 50, 100), List.of(0, 50, 100), 20,
                List.of(0, 100), List.of(0, 100),
                100, List.of(0, 100),
                100, 0, 200,
                List.of(1, 150),
                List.of(0, 100),
                500, 1,
                200, 150,
                16, Duration.ofSeconds(30), Duration.ofSeconds(60));
    }

    public static Profile full() {
        return new Profile("full",
                List.of(0, 20, 50, 100), 200, 16,
                List.of(0, 25, 50, 100, 200), List.of(0, 25, 50, 100, 200), 100,
                List.of(0, 25, 50, 100, 200), List.of(0, 25, 50, 100, 200),
                100, List.of(0, 25, 50, 100, 150, 200),
                100, 0, 200,
                List.of(1, 25, 50, 100, 150, 200),
                List.of(0, 25, 50, 100, 150, 200),
                500, 1,
                200, 150,
                100, Duration.ofSeconds(60), Duration.ofSeconds(300));
    }

    public Profile withLockRequestsPerRun(int requests) {
        return new Profile(name, baselineClientRttsMillis, baselineOps, asyncWindow, createGridClientRttsMillis,
                createGridServerRttsMillis, createOps, lockGridClientRttsMillis, lockGridServerRttsMillis,
                serverSweepClientRttMillis, serverSweepServerRttsMillis, highClientRttMillis, lowClientRttMillis,
                contentionInterArrivalMillis, contentionServiceMillis, rttSweepClientRttsMillis,
                lowContentionInterArrivalMillis, lowContentionServiceMillis, highContentionInterArrivalMillis,
                highContentionServiceMillis, requests, acquireTimeout, runTimeout);
    }
}
