package io.synod.protocol;

/**
 * The answer to a client request (core's {@code ClientRequest}: a command with its client id and sequence).
 *
 * @param slot     the log slot the result reflects (for a write, the slot it was applied in; for a
 *                 local read, the applied slot it was read at); 0 when the status is not OK
 * @param leaderHint the node this replica believes leads, or -1 if unknown
 */
public record ClientReply(long clientId, long sequence, Status status, long slot, byte[] result, int leaderHint) {
    public enum Status {
        /** Applied (or read) at {@code slot}; {@code result} is the state machine's answer. */
        OK,
        /** Not applied here and never will be by this replica: retry at {@code leaderHint}. */
        NOT_LEADER,
        /**
         * This replica accepted the command into its log but lost leadership before it was
         * chosen: it may or may not take effect. Retry with the same sequence (applied at most once).
         */
        UNKNOWN,
        /** The bounded proposal queue is full: retry later. Nothing was logged. */
        BUSY,
        /** The request is malformed (too large, bad payload); retrying will not help. */
        REJECTED,
        /** The sequence is older than this client's latest applied one; its result is gone. */
        STALE_SEQUENCE
    }

    public ClientReply {
        if (status == null || result == null) {
            throw new IllegalArgumentException("reply needs a status and a (possibly empty) result");
        }
    }
}
