package io.synod.server.group;

import io.synod.core.paxos.Message;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The peer messages one group sent, by kind: what a write costs on the peer links (an Accept and an Accepted per
 * round and follower, a commit point sent alone, a heartbeat's reply) shows here, where the link counters only see
 * frames and messages. One writer (the group's worker), read at the scrape.
 */
final class SentKinds {
    /** What a peer message is, for the meter's {@code kind} label (snapshot and shard messages both ways in one). */
    enum Kind {
        ACCEPT, ACCEPTED, HEARTBEAT, HEARTBEAT_REPLY, LEASE, PREPARE, PROMISE, NACK, SNAPSHOT, SHARD;

        /** The label of the kind on the meter: lower case, as the exposition's other labels. */
        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final Kind[] KINDS = Kind.values();
    /** Every kind of the sealed {@link Message} (a new one fails {@code SentKindsTest} until it is added here). */
    private static final Map<Class<?>, Kind> BY_CLASS = Map.ofEntries(Map.entry(Message.Accept.class, Kind.ACCEPT),
            Map.entry(Message.Accepted.class, Kind.ACCEPTED), Map.entry(Message.Heartbeat.class, Kind.HEARTBEAT),
            Map.entry(Message.HeartbeatReply.class, Kind.HEARTBEAT_REPLY), Map.entry(Message.Lease.class, Kind.LEASE),
            Map.entry(Message.Prepare.class, Kind.PREPARE), Map.entry(Message.Promise.class, Kind.PROMISE),
            Map.entry(Message.Nack.class, Kind.NACK), Map.entry(Message.InstallSnapshot.class, Kind.SNAPSHOT),
            Map.entry(Message.SnapshotRequest.class, Kind.SNAPSHOT), Map.entry(Message.ShardRequest.class, Kind.SHARD),
            Map.entry(Message.ShardReply.class, Kind.SHARD));

    private final AtomicLongArray counts = new AtomicLongArray(KINDS.length);

    void sent(Message m) {
        int i = kind(m).ordinal();
        counts.lazySet(i, counts.get(i) + 1); // One writer: no read-modify-write race to guard against.
    }

    long count(Kind kind) {
        return counts.get(kind.ordinal());
    }

    static Kind kind(Message m) {
        return BY_CLASS.get(m.getClass());
    }
}
