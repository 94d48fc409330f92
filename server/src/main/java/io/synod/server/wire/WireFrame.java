package io.synod.server.wire;

import io.synod.core.paxos.Message;
import io.synod.protocol.ClientFrame;
import java.util.List;

/**
 * Everything that travels in one frame on a Synod connection, peer or client. The byte layout is
 * {@link WireCodec}'s; it starts with a version byte so a later format can be told apart. The client
 * frames mirror core's {@code io.synod.protocol.ClientFrame}, whose codec defines their bytes (the
 * SDK uses it without depending on the server); {@link ClientFrames} converts.
 */
public sealed interface WireFrame {
    /** First frame on a peer connection: who is calling, for which cluster. */
    record Hello(int nodeId, String cluster) implements WireFrame {}

    /** A replica-to-replica message for one group. */
    record PeerMessage(int group, Message message) implements WireFrame {}

    /**
     * The messages of all the groups of one node bound for the same peer, queued within a pass of the node's
     * group workers, in one frame (the sender bounds it by the frame limit); the receiver hands each to its
     * group in order.
     */
    record PeerBatch(List<PeerMessage> messages) implements WireFrame {
        public PeerBatch {
            messages = List.copyOf(messages);
        }
    }

    /**
     * A client command a server forwards to the node it believes leads the command's group, on the peer
     * connection, for a client that could not reach that leader ({@code ClientForwarder}). The receiver
     * checks the client's rights itself: {@code role}, {@code user} and {@code cluster} are the identity
     * the client's certificate named at the forwarding server (empty without TLS). The receiver answers
     * with a {@link ForwardReply} carrying the same {@code forwardId}, and never forwards it again.
     */
    record ForwardRequest(long forwardId, String role, String user, String cluster, long clientId, long sequence,
            byte[] payload, int flags) implements WireFrame {}

    /** The answer to a {@link ForwardRequest}: the receiving node's client response, field for field. */
    record ForwardReply(long forwardId, int group, int status, long slot, int leaderHint, byte[] result, int served)
            implements WireFrame {}

    /**
     * A client command. The server routes it to the group owning the command's key (range shards);
     * {@code requestId} is echoed in the response; (clientId, sequence) make retries at-most-once.
     */
    record ClientCommand(long requestId, long clientId, long sequence, byte[] payload, int flags) implements WireFrame {
        /** {@code ClientFrame.FLAG_THROUGH_LOG}: a read that must not be answered under a lease. */
        public static final int FLAG_THROUGH_LOG = ClientFrame.FLAG_THROUGH_LOG;

        public ClientCommand(long requestId, long clientId, long sequence, byte[] payload) {
            this(requestId, clientId, sequence, payload, 0);
        }
    }

    /**
     * The answer to a {@link ClientCommand}. {@code status} is a {@code ClientReply.Status} ordinal,
     * or {@link #STATUS_NO_GROUP} when this server hosts no group for the key (or it is not serving).
     */
    record ClientResponse(long requestId, int group, int status, long slot, int leaderHint, byte[] result, int served)
            implements WireFrame {
        public static final int STATUS_NO_GROUP = 100;
        public static final int SERVED_LOG = ClientFrame.SERVED_LOG;
        public static final int SERVED_LEASE = ClientFrame.SERVED_LEASE;
        public static final int SERVED_LOCAL = ClientFrame.SERVED_LOCAL;

        /** A response whose path is the log (or does not matter: a write, an error). */
        public ClientResponse(long requestId, int group, int status, long slot, int leaderHint, byte[] result) {
            this(requestId, group, status, slot, leaderHint, result, SERVED_LOG);
        }
    }

    /** Asks a server for its groups' state (used by {@code synod cluster} and the demo). */
    record StatusQuery(long requestId) implements WireFrame {}

    /** One server's view of its groups. */
    record StatusReport(long requestId, int nodeId, List<GroupStatus> groups) implements WireFrame {
        public StatusReport {
            groups = List.copyOf(groups);
        }
    }

    /** A read answered from the receiving replica's local state at its applied slot (consistency STALE). */
    record StaleRead(long requestId, byte[] payload) implements WireFrame {}

    /** Asks a server for the shard map it routes by (clients given server addresses instead of ZooKeeper). */
    record ShardMapQuery(long requestId) implements WireFrame {}

    /** The server's shard map in {@code ShardMap} encoding. */
    record ShardMapReport(long requestId, byte[] shardMap) implements WireFrame {}

    /** A watch poll ({@code WatchCodec.Query} bytes), answered with a {@link ClientResponse} when events arrive or its wait ends. */
    record WatchPoll(long requestId, byte[] query) implements WireFrame {}

    /**
     * An admin request to {@code group}'s leader: change the group's coding to F, X and {@code thresholdBytes} (0: keep
     * the threshold); answered with a {@link ClientResponse} once the change entry is applied (core's
     * {@code ClientFrame.CodingChange}).
     */
    record CodingChange(long requestId, int group, int failures, int dataShards, int thresholdBytes) implements WireFrame {}

    /**
     * @param role      {@code Role} ordinal
     * @param state     0 serving, 1 repairing (refuses to vote in phase 1 after log corruption), 2 failed
     */
    record GroupStatus(int group, int role, long promisedEpoch, int leaderHint, long commitSlot, long appliedSlot,
            long snapshotSlot, int state) {
        public static final int SERVING = 0;
        public static final int REPAIRING = 1;
        public static final int FAILED = 2;
    }
}
