package io.synod.server.group;

import io.synod.core.paxos.Message;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The peer messages one group sent, by kind: what a write costs on the peer links (an Accept and an Accepted per
 * round and follower, a commit point sent alone, a heartbeat's reply) shows here, where the link counters only see
 * frames and messages. One writer (the group's worker), read at the scrape.
 */
final class SentKinds {
    /** Kinds by how often they are sent in steady state: the loop in {@link #kind} looks at the common ones first. */
    enum Kind {
        ACCEPT, ACCEPTED, HEARTBEAT, HEARTBEAT_REPLY, LEASE, PREPARE, PROMISE, NACK, SNAPSHOT, SHARD;

        /** The label of the kind on the meter: lower case, as the exposition's other labels. */
        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final Kind[] KINDS = Kind.values();

    private final AtomicLongArray counts = new AtomicLongArray(KINDS.length);

    void sent(Message m) {
        int i = kind(m).ordinal();
        counts.lazySet(i, counts.get(i) + 1); // One writer: no read-modify-write race to guard against.
    }

    long count(Kind kind) {
        return counts.get(kind.ordinal());
    }

    static Kind kind(Message m) {
        if (m instanceof Message.Accept) {
            return Kind.ACCEPT;
        } else if (m instanceof Message.Accepted) {
            return Kind.ACCEPTED;
        } else if (m instanceof Message.Heartbeat) {
            return Kind.HEARTBEAT;
        } else if (m instanceof Message.HeartbeatReply) {
            return Kind.HEARTBEAT_REPLY;
        } else if (m instanceof Message.Lease) {
            return Kind.LEASE;
        } else if (m instanceof Message.Prepare) {
            return Kind.PREPARE;
        } else if (m instanceof Message.Promise) {
            return Kind.PROMISE;
        } else if (m instanceof Message.Nack) {
            return Kind.NACK;
        } else if (m instanceof Message.InstallSnapshot || m instanceof Message.SnapshotRequest) {
            return Kind.SNAPSHOT;
        }
        return Kind.SHARD; // ShardRequest and ShardReply: the sealed interface has no other kind.
    }
}
