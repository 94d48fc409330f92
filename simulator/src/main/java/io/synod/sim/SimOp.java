package io.synod.sim;

/**
 * One client operation of a scenario run ({@link Simulation#runScenario}), for experiments: where it
 * came from, what it was, when it was invoked and completed, and which replica answered it.
 *
 * @param site          the client's site (node index), or -1 when clients are not attached to sites
 * @param write         an append (true) or a read
 * @param key           the key
 * @param invokeNanos   simulated time of the invocation
 * @param completeNanos simulated time of the completion
 * @param outcome       how it ended
 * @param node          the replica whose OK reply completed it, or -1
 * @param attempts      attempts it took
 */
public record SimOp(int site, boolean write, String key, long invokeNanos, long completeNanos, Outcome outcome, int node,
        int attempts) {
    /** The history's three outcomes. */
    public enum Outcome { OK, FAIL, INFO }

    public long latencyNanos() {
        return completeNanos - invokeNanos;
    }
}
