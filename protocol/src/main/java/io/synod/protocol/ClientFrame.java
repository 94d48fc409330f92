package io.synod.protocol;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The frames of the client protocol (docs/server.md, "Wire protocol"): what a client and a server
 * say to each other. They live in the protocol module so the server and the client SDK share one definition and one
 * byte format ({@link ClientFrameCodec}) without the SDK depending on the server.
 */
public sealed interface ClientFrame {
    /** Status of a {@link Response} when the server hosts no serving group for the key. */
    int STATUS_NO_GROUP = 100;
    /**
     * Status of a {@link Response} refused by the client port's authorization: the result is the missing permission,
     * NUL, a one-line message, NUL, the key ("" if none; last, as a reserved key holds a NUL) (docs/security.md).
     * Retrying will not help.
     */
    int STATUS_PERMISSION_DENIED = 101;
    /**
     * Status of a {@link Response} to a {@link Command} sent with {@link #FLAG_ROUTED} to a node that does not host the
     * command's group in the placement it knows: the result is that placement's version (u64), so the client can
     * tell whether asking again ({@link PlacementQuery}) may teach it something. Never sent without the flag.
     */
    int STATUS_NOT_HOSTED = 102;

    long requestId();

    /** {@link Command#flags} bit: a read that must go through the log even where a lease could serve it. */
    int FLAG_THROUGH_LOG = 1;
    /**
     * {@link Command#flags} bit: a server that does not lead the command's group may forward it to the leader it
     * is connected to and relay the answer, instead of answering NOT_LEADER. A client sets it when the leader a
     * server named did not answer it (it may be cut from that leader while the servers are not); a forwarded
     * command is never forwarded again.
     */
    int FLAG_FORWARD = 2;
    /**
     * {@link Command#flags} bit: the client routes by the placement ({@link PlacementReport}), so a node that does not
     * host the command's group answers {@link #STATUS_NOT_HOSTED} at once. A client sets it only towards a server that
     * answered a {@link PlacementQuery} (an older server refuses a command with a flag it does not know).
     */
    int FLAG_ROUTED = 4;
    /** Every {@link Command#flags} bit this protocol defines. */
    int COMMAND_FLAGS = FLAG_THROUGH_LOG | FLAG_FORWARD | FLAG_ROUTED;

    /** {@link Response#served}: the answer went through the log (every write; a read without a lease). */
    int SERVED_LOG = 0;
    /** {@link Response#served}: a read the leader answered from its state under its lease (LeaseGuard). */
    int SERVED_LEASE = 1;
    /** {@link Response#served}: a STALE read answered from the receiving replica's state, no guarantee. */
    int SERVED_LOCAL = 2;

    /**
     * A command (a {@code KvCommand} payload), routed by the server to the group owning its key and
     * sequenced through that group's log, or for a read answered under a lease unless {@code flags}
     * has {@link #FLAG_THROUGH_LOG}; (clientId, sequence) make retries apply at most once.
     */
    record Command(long requestId, long clientId, long sequence, byte[] payload, int flags) implements ClientFrame {
        public Command(long requestId, long clientId, long sequence, byte[] payload) {
            this(requestId, clientId, sequence, payload, 0);
        }
    }

    /**
     * The answer to a {@link Command} or {@link StaleRead}: {@code status} is a
     * {@code ClientReply.Status} ordinal or {@link #STATUS_NO_GROUP}; {@code slot} the log slot the
     * result reflects; {@code leaderHint} the node the server believes leads the group (-1 unknown);
     * {@code served} which path answered an OK read ({@link #SERVED_LOG}, {@link #SERVED_LEASE},
     * {@link #SERVED_LOCAL}).
     */
    record Response(long requestId, int group, int status, long slot, int leaderHint, byte[] result, int served)
            implements ClientFrame {
        public Response(long requestId, int group, int status, long slot, int leaderHint, byte[] result) {
            this(requestId, group, status, slot, leaderHint, result, SERVED_LOG);
        }
    }

    /** Asks a server for its groups' state. */
    record StatusQuery(long requestId) implements ClientFrame {}

    /** One server's view of its groups. */
    record StatusReport(long requestId, int nodeId, List<GroupStatus> groups) implements ClientFrame {
        public StatusReport {
            groups = List.copyOf(groups);
        }
    }

    /**
     * One group as one node's replica sees it now (from the replica's state, not from the creation-time spec).
     *
     * @param role  {@code Role} ordinal (0 follower, 1 candidate, 2 leader)
     * @param state {@link #SERVING}, {@link #REPAIRING} (refuses to vote in phase 1 after log corruption) or
     *              {@link #FAILED}
     * @param lease the read-lease mode the replica runs ("none", "leader", "quorum", ...: the coordination
     *              layer's {@code LeaseMode} in lower case)
     * @param coding the RS-Paxos coding in force at the replica's applied slot ({@link CodingStatus#OFF}: majorities,
     *               full copies)
     */
    record GroupStatus(int group, int role, long promisedEpoch, int leaderHint, long commitSlot, long appliedSlot,
            long snapshotSlot, int state, String lease, CodingStatus coding) {
        public static final int SERVING = 0;
        public static final int REPAIRING = 1;
        public static final int FAILED = 2;
        /** Longest lease mode name on the wire, in UTF-8 bytes. */
        public static final int MAX_LEASE_NAME = 32;

        public GroupStatus {
            if (lease == null || lease.isEmpty() || lease.getBytes(StandardCharsets.UTF_8).length > MAX_LEASE_NAME
                    || coding == null) {
                throw new IllegalArgumentException("group status needs a lease mode of 1.." + MAX_LEASE_NAME
                        + " UTF-8 bytes and a coding, got " + lease + " and " + coding);
            }
        }
    }

    /**
     * A group's RS-Paxos coding: N acceptors ({@code totalShards}), tolerating F {@code failures}, values of at
     * least {@code thresholdBytes} coded into X {@code dataShards} (docs/erasure.md).
     */
    record CodingStatus(int totalShards, int failures, int dataShards, int thresholdBytes) {
        /** No coding: majorities and full copies. */
        public static final CodingStatus OFF = new CodingStatus(0, 0, 0, 0);

        public boolean enabled() {
            return totalShards > 0;
        }

        /** "off", or "N=5 F=1 X=3 threshold=4096B". */
        public String describe() {
            return enabled() ? "N=" + totalShards + " F=" + failures + " X=" + dataShards + " threshold="
                    + thresholdBytes + "B" : "off";
        }
    }

    /**
     * A read-only command answered from the receiving replica's local state, leader or not, at its
     * applied slot (consistency STALE: possibly old). Answered with a {@link Response}.
     */
    record StaleRead(long requestId, byte[] payload) implements ClientFrame {}

    /** Asks a server for the shard map it routes by. */
    record ShardMapQuery(long requestId) implements ClientFrame {}

    /** The server's shard map, in the coordination module's {@code ShardMap} encoding. */
    record ShardMapReport(long requestId, byte[] shardMap) implements ClientFrame {}

    /**
     * A watch poll ({@code WatchCodec.Query} bytes): the events of a key or prefix from a position on, read from the
     * watch log of the session group's leader; held by the server until an event arrives or the query's wait ends,
     * then answered with a {@link Response} whose result is a {@code WatchCodec} batch.
     */
    record WatchPoll(long requestId, byte[] query) implements ClientFrame {}

    /**
     * An admin request: {@code group}'s leader proposes changing the group's RS-Paxos coding to F = {@code failures},
     * X = {@code dataShards} and {@code thresholdBytes} (0: keep the group's threshold); N is fixed. Answered with a
     * {@link Response} once the change entry is applied at the leader ({@code slot}: its slot; result: the coding
     * now in force, UTF-8), or REJECTED naming the rule broken, or NOT_LEADER with the leader hint
     * (docs/erasure.md "Coding changes", "The admin path").
     */
    record CodingChange(long requestId, int group, int failures, int dataShards, int thresholdBytes) implements ClientFrame {}

    /** {@link MembershipRequest#op}: the group's membership as its leader sees it (nothing changes). */
    int MEMBERSHIP_STATUS = 0;
    /** {@link MembershipRequest#op}: add replica id {@code replica} as a learner. */
    int MEMBERSHIP_ADD_LEARNER = 1;
    /** {@link MembershipRequest#op}: promote the learner {@code replica} to voter (once caught up). */
    int MEMBERSHIP_PROMOTE = 2;
    /** {@link MembershipRequest#op}: remove the voter or learner {@code replica} (its id is retired). */
    int MEMBERSHIP_REMOVE = 3;
    /**
     * {@link MembershipRequest#op}: move the group's replica from one node to another ({@code replica} packs both node
     * ids, {@link #moveNodes}); the leader records the new placement and converges the membership to it.
     */
    int MEMBERSHIP_MOVE = 4;

    /**
     * {@link MembershipRequest#op}: take node {@code replica}, which must host no group in the placement any more,
     * out of the cluster's node set (the placement records it as removed; moves, rebalancing and joins then leave it
     * out). Any group's leader answers it; a server older than it refuses it as an unknown op.
     */
    int MEMBERSHIP_REMOVE_NODE = 5;

    /**
     * A node of a {@link #MEMBERSHIP_MOVE} that lets the leader choose. As {@code to} (with a {@code from} node:
     * {@code synod admin remove-node}), the node that takes the replica: the fewest replicas, zones kept, an id never
     * removed. As {@code from} (with {@code to} also this value: {@code synod admin rebalance}), the whole move: from
     * the group's most loaded node to such a node, if that narrows the spread.
     */
    int MOVE_TO_ANY = 0xff;

    /** The {@code replica} field of a {@link #MEMBERSHIP_MOVE}: node {@code from} in bits 8..15, node {@code to} in 0..7. */
    static int moveNodes(int from, int to) {
        return (from & 0xff) << 8 | (to & 0xff);
    }

    /**
     * An admin membership request for {@code group} (docs/membership.md, "On the server"): {@code op} is one of the
     * {@code MEMBERSHIP_*} values, {@code replica} the replica id it changes (ignored for a status). Answered by the
     * group's leader with a {@link Response}: OK with the change entry's slot (0 for a status) and the group's
     * membership as UTF-8 text, REJECTED naming the rule a change breaks, or NOT_LEADER.
     */
    record MembershipRequest(long requestId, int group, int op, int replica, int flags) implements ClientFrame {
        /** A request without flags (encoded as before the flags byte existed, so every server reads it). */
        public MembershipRequest(long requestId, int group, int op, int replica) {
            this(requestId, group, op, replica, 0);
        }
    }

    /**
     * Every {@link MembershipRequest#flags} bit: {@link #FLAG_ROUTED} only, with the meaning it has on a {@link Command}
     * (a node that does not host the group answers {@link #STATUS_NOT_HOSTED}). Sent as one byte after the request's
     * fields when not 0, and only to a server whose {@link PlacementReport} named {@link #FEATURE_ROUTED_ADMIN}: an older
     * server refuses the byte, as trailing bytes, and closes the connection.
     */
    int MEMBERSHIP_FLAGS = FLAG_ROUTED;

    /**
     * {@link PlacementQuery#features} and {@link PlacementReport#features} bit: the server answers a {@link
     * MembershipRequest} carrying {@link #FLAG_ROUTED} (admin requests routed by the placement).
     */
    int FEATURE_ROUTED_ADMIN = 1;

    /**
     * Asks a server for the placement it routes by (docs/membership.md, "Routing by the placement"), answered with a
     * {@link PlacementReport}. A server older than this frame closes the connection on it, so the SDK asks on a
     * connection of its own.
     *
     * @param features the {@code FEATURE_*} bits the client can use, one byte after the request id when not 0 (a server
     *                 older than the byte closes the connection on it; the SDK then asks again without it); the report
     *                 names those the server knows too
     */
    record PlacementQuery(long requestId, int features) implements ClientFrame {
        /** A query without features (encoded as before the features byte existed). */
        public PlacementQuery(long requestId) {
            this(requestId, 0);
        }
    }

    /**
     * Which nodes host each group, as the answering server knows it.
     *
     * @param version the placement znode's version (grows with every move or node change; -1: no placement recorded,
     *                every node hosts every group)
     * @param nodes   the cluster's node count M (ids 0..M-1, removed ones included)
     * @param removed the nodes taken out of the node set ({@link #MEMBERSHIP_REMOVE_NODE}), bit n = node n
     * @param hosts   per group, the nodes that host it now, bit n = node n
     * @param features the query's {@code FEATURE_*} bits the server knows: one byte after the hosts, sent only when the
     *                 query named features (so a client older than the byte never gets it)
     */
    record PlacementReport(long requestId, long version, int nodes, long removed, List<Long> hosts, int features)
            implements ClientFrame {
        public PlacementReport {
            hosts = List.copyOf(hosts);
        }

        /** A report without features (the answer to a query that named none). */
        public PlacementReport(long requestId, long version, int nodes, long removed, List<Long> hosts) {
            this(requestId, version, nodes, removed, hosts, 0);
        }

        /** Whether {@code node} hosts {@code group} (true for a group or node this report does not cover). */
        public boolean hosts(int group, int node) {
            return group < 0 || group >= hosts.size() || node < 0 || node >= 64 || (hosts.get(group) & 1L << node) != 0;
        }
    }
}
