package io.synod.core.paxos;

import java.util.Arrays;

/**
 * A client command as it is replicated: who sent it, its per-client sequence number (for
 * at-most-once application of retries), and the state machine's encoded operation. A no-op
 * (used by a new leader to fill log gaps) has client id {@link #NOOP_CLIENT}.
 */
public final class Command {
    /** Client id reserved for no-ops. */
    public static final long NOOP_CLIENT = 0;
    public static final Command NOOP = new Command(NOOP_CLIENT, 0, new byte[0]);

    private final long clientId;
    private final long sequence;
    private final byte[] payload;

    public Command(long clientId, long sequence, byte[] payload) {
        if (payload == null) {
            throw new IllegalArgumentException("command payload must not be null");
        }
        if (clientId < 0 || sequence < 0) {
            throw new IllegalArgumentException(
                    "client id and sequence must be >= 0, got " + clientId + "/" + sequence);
        }
        if (clientId == NOOP_CLIENT && payload.length != 0) {
            throw new IllegalArgumentException("client id 0 is reserved for no-ops");
        }
        this.clientId = clientId;
        this.sequence = sequence;
        this.payload = payload;
    }

    public long clientId() {
        return clientId;
    }

    public long sequence() {
        return sequence;
    }

    /** The encoded operation. Callers must not modify it. */
    public byte[] payload() {
        return payload;
    }

    public boolean isNoop() {
        return clientId == NOOP_CLIENT;
    }

    /** Bytes this command takes on the wire and on disk (for batch bounds). */
    public int sizeBytes() {
        return 16 + payload.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Command c && c.clientId == clientId && c.sequence == sequence
                && Arrays.equals(c.payload, payload);
    }

    @Override
    public int hashCode() {
        return (Long.hashCode(clientId) * 31 + Long.hashCode(sequence)) * 31 + Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
        return isNoop() ? "noop" : "cmd(" + clientId + "#" + sequence + "," + payload.length + "B)";
    }
}
