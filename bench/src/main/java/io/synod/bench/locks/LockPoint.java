package io.synod.bench.locks;

/**
 * One measurement condition of the lock experiments. Experiments that share a condition (for example the
 * lock grid and the low-contention RTT sweep) share its measurement.
 */
public record LockPoint(int clientRttMillis, int serverRttMillis, int interArrivalMillis, int serviceMillis) {

    /** Seed of this point's arrival and service draws: the same for all four primitives, so they see the same load. */
    public long seed(long baseSeed) {
        long h = baseSeed;
        h = h * 1_000_003L + clientRttMillis;
        h = h * 1_000_003L + serverRttMillis;
        h = h * 1_000_003L + interArrivalMillis;
        h = h * 1_000_003L + serviceMillis;
        return h;
    }

    public String describe() {
        return "client RTT " + clientRttMillis + " ms, server RTT " + serverRttMillis + " ms, inter-arrival "
                + interArrivalMillis + " ms, critical section " + serviceMillis + " ms";
    }

    public String slug() {
        return "c" + clientRttMillis + "-s" + serverRttMillis + "-ia" + interArrivalMillis + "-cs" + serviceMillis;
    }
}
