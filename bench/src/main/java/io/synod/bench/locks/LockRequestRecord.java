package io.synod.bench.locks;

/** What happened to one lock request (System.nanoTime stamps; 0 = did not happen). */
public final class LockRequestRecord {

    public enum Outcome { OK, TIMEOUT, ERROR, UNFINISHED }

    final int requestIndex;
    volatile int clientIndex = -1;
    volatile long arrivalNanos;
    volatile long acquireStartNanos;
    volatile long acquiredNanos;
    volatile long criticalSectionEndNanos;
    volatile long releasedNanos;
    volatile long fencingToken = -1;
    volatile Outcome outcome = Outcome.UNFINISHED;
    volatile String error;

    LockRequestRecord(int requestIndex) {
        this.requestIndex = requestIndex;
    }

    public int requestIndex() {
        return requestIndex;
    }

    public int clientIndex() {
        return clientIndex;
    }

    public long arrivalNanos() {
        return arrivalNanos;
    }

    public long acquireStartNanos() {
        return acquireStartNanos;
    }

    public long acquiredNanos() {
        return acquiredNanos;
    }

    public long criticalSectionEndNanos() {
        return criticalSectionEndNanos;
    }

    public long releasedNanos() {
        return releasedNanos;
    }

    public long fencingToken() {
        return fencingToken;
    }

    public Outcome outcome() {
        return outcome;
    }

    public String error() {
        return error;
    }
}
