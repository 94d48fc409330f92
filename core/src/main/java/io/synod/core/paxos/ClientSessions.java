package io.synod.core.paxos;

import io.synod.protocol.ClientReply;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The at-most-once table: for each client, the last applied sequence number, the slot it was
 * applied in and its result, so a retried command is answered from here instead of being applied
 * again. It is part of the replicated state: it changes only when a command is applied, and is
 * ordered by last application, so every replica evicts the same client when the bound is hit and
 * produces identical snapshot bytes.
 *
 * <p>Format 1 is {@code [1][count]} and the sessions; format 2 (written only by a group whose coding
 * changed through the log) appends {@code [trailer length u32][trailer]}, the coding in effect after the
 * snapshot's slot ({@link Coding#encodeParameters()}), so that it survives compaction and restarts.
 */
final class ClientSessions {
    record Session(long lastSequence, long lastSlot, byte[] lastResult) {}

    private static final int FORMAT_VERSION = 1;
    private static final int FORMAT_WITH_TRAILER = 2;

    private final int maxSessions;
    /**
     * The sessions, ordered by last application (eldest first). Every applied command looks its client up here
     * several times (answer, evictedBy, recordApplied, and on the leader once more before proposing): a
     * {@code LinkedHashMap<Long, Session>} boxed the id on each and allocated a node and a record per application
     * (10-13 % of the group workers' profile samples, docs/bench-kv.md). This table keeps the ids in an
     * open-addressed array and updates a session in place.
     */
    private final SessionTable sessions = new SessionTable();

    ClientSessions(int maxSessions) {
        this.maxSessions = maxSessions;
    }

    Session get(long clientId) {
        int e = sessions.find(clientId);
        return e < 0 ? null : sessions.session(e);
    }

    /**
     * The answer the table holds for an already applied {@code command} (OK with its slot and result, or
     * STALE_SEQUENCE for an older one; leader hint -1), or null if it is new.
     */
    ClientReply answer(Command command) {
        int e = sessions.find(command.clientId());
        if (e < 0 || command.sequence() > sessions.sequence(e)) {
            return null;
        }
        if (command.sequence() < sessions.sequence(e)) {
            return new ClientReply(command.clientId(), command.sequence(), ClientReply.Status.STALE_SEQUENCE, 0,
                    new byte[0], -1);
        }
        return new ClientReply(command.clientId(), command.sequence(), ClientReply.Status.OK, sessions.slot(e),
                sessions.result(e), -1);
    }

    /** Records an application; evicts the client applied longest ago when over the bound. */
    void recordApplied(long clientId, long sequence, long slot, byte[] result) {
        sessions.put(clientId, sequence, slot, result, true);
        if (sessions.size() > maxSessions) {
            sessions.removeEldest();
        }
    }

    /** The client {@link #recordApplied} would evict to record {@code clientId}, or 0 if none. */
    long evictedBy(long clientId) {
        if (sessions.size() < maxSessions || sessions.find(clientId) >= 0) {
            return 0;
        }
        return sessions.eldestClient();
    }

    /**
     * Replaces the table with records kept by a durable state machine. The table is ordered by
     * last application, which is slot order, so sorting by slot rebuilds the same eviction order.
     */
    void restore(List<AppliedState.ClientSession> records) {
        sessions.clear();
        List<AppliedState.ClientSession> bySlot = new ArrayList<>(records);
        bySlot.sort(Comparator.comparingLong(AppliedState.ClientSession::slot));
        for (AppliedState.ClientSession r : bySlot) {
            recordApplied(r.clientId(), r.sequence(), r.slot(), r.result());
        }
    }

    /** The table as records, for a durable state machine. */
    List<AppliedState.ClientSession> records() {
        List<AppliedState.ClientSession> out = new ArrayList<>(sessions.size());
        for (int e = sessions.eldest(); e >= 0; e = sessions.younger(e)) {
            out.add(new AppliedState.ClientSession(sessions.client(e), sessions.sequence(e), sessions.slot(e),
                    sessions.result(e)));
        }
        return out;
    }

    int size() {
        return sessions.size();
    }

    byte[] encode() {
        return encode(null);
    }

    /** The table in format 1, or with {@code trailer} (not null) in format 2. */
    byte[] encode(byte[] trailer) {
        int size = 8 + (trailer == null ? 0 : 4 + trailer.length);
        for (int e = sessions.eldest(); e >= 0; e = sessions.younger(e)) {
            size += 8 + 8 + 8 + 4 + sessions.result(e).length;
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.putInt(trailer == null ? FORMAT_VERSION : FORMAT_WITH_TRAILER).putInt(sessions.size());
        for (int e = sessions.eldest(); e >= 0; e = sessions.younger(e)) {
            byte[] result = sessions.result(e);
            out.putLong(sessions.client(e)).putLong(sessions.sequence(e)).putLong(sessions.slot(e));
            out.putInt(result.length).put(result);
        }
        if (trailer != null) {
            out.putInt(trailer.length).put(trailer);
        }
        return out.array();
    }

    /** Replaces the table with decoded bytes; throws {@link IllegalArgumentException} on bad input. */
    void restore(byte[] bytes) {
        restoreWithTrailer(bytes);
    }

    /** The trailer of {@code bytes} (format 2), or null (format 1, or empty); checks the whole table. */
    static byte[] trailerOf(byte[] bytes) {
        return new ClientSessions(Integer.MAX_VALUE).restoreWithTrailer(bytes);
    }

    /**
     * Replaces the table with decoded bytes and returns the format 2 trailer, or null; throws
     * {@link IllegalArgumentException} on bad input.
     */
    byte[] restoreWithTrailer(byte[] bytes) {
        sessions.clear();
        if (bytes.length == 0) {
            return null;
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        if (in.remaining() < 8) {
            throw new IllegalArgumentException("client session table truncated in header");
        }
        int version = in.getInt();
        if (version != FORMAT_VERSION && version != FORMAT_WITH_TRAILER) {
            throw new IllegalArgumentException("client session table version " + version + " is not supported");
        }
        int count = in.getInt();
        if (count < 0 || (long) count * 28 > in.remaining()) {
            throw new IllegalArgumentException("client session count " + count + " exceeds the "
                    + in.remaining() + " remaining bytes");
        }
        for (int i = 0; i < count; i++) {
            if (in.remaining() < 28) {
                throw new IllegalArgumentException("client session table truncated at session " + i);
            }
            long clientId = in.getLong();
            long sequence = in.getLong();
            long slot = in.getLong();
            int resultLength = in.getInt();
            if (resultLength < 0 || resultLength > in.remaining()) {
                throw new IllegalArgumentException("client session result length " + resultLength + " is invalid");
            }
            byte[] result = new byte[resultLength];
            in.get(result);
            // As a map's put: a client named twice keeps its first place and takes the later values.
            sessions.put(clientId, sequence, slot, result, false);
        }
        byte[] trailer = null;
        if (version == FORMAT_WITH_TRAILER) {
            if (in.remaining() < 4) {
                throw new IllegalArgumentException("client session table truncated before its trailer");
            }
            int length = in.getInt();
            if (length < 0 || length > in.remaining()) {
                throw new IllegalArgumentException("client session trailer length " + length + " is invalid");
            }
            trailer = new byte[length];
            in.get(trailer);
        }
        if (in.hasRemaining()) {
            throw new IllegalArgumentException("client session table has " + in.remaining() + " trailing bytes");
        }
        return trailer;
    }
}
