package io.synod.server.node;

import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * A replica names its group's leader by replica id, and after a re-join or a move those ids go beyond the node ids
 * (docs/membership.md, "Replica ids beyond node ids"); the SDK and {@link ClientForwarder} know nodes and follow a hint
 * only to a node they know. So every answer that leaves for a client names the leader's node: without this, a client
 * ignored the hint of a re-joined leader and found it by trying the other nodes (one round trip more per leader change).
 * A follower's refusal of a quorum-lease read names the key's lease holders as a bit set of replica ids: it leaves as a
 * bit set of their nodes, for the same reason.
 */
final class LeaderHints {

    private LeaderHints() {}

    /** {@code respond}, with each response's hint turned from a replica id into that replica's node. */
    static Consumer<ClientFrame.Response> byNode(ReplicaRoutes routes, Consumer<ClientFrame.Response> respond) {
        return routes == null ? respond : r -> respond.accept(byNode(routes, r));
    }

    static ClientFrame.Response byNode(ReplicaRoutes routes, ClientFrame.Response r) {
        int node = node(routes, r.group(), r.leaderHint());
        byte[] result = r.result();
        if (r.status() == ClientReply.Status.NOT_LEADER.ordinal() && result.length == Long.BYTES) {
            long replicas = ByteBuffer.wrap(result).getLong();
            long nodes = 0;
            for (long bits = replicas; bits > 0; bits &= bits - 1) { // -1 (unknown) stays as it is
                nodes |= 1L << node(routes, r.group(), Long.numberOfTrailingZeros(bits));
            }
            result = replicas > 0 && nodes != replicas ? ByteBuffer.allocate(Long.BYTES).putLong(nodes).array() : result;
        }
        return node == r.leaderHint() && result == r.result() ? r
                : new ClientFrame.Response(r.requestId(), r.group(), r.status(), r.slot(), node, result, r.served());
    }

    static ClientFrame.GroupStatus byNode(ReplicaRoutes routes, ClientFrame.GroupStatus s) {
        int node = node(routes, s.group(), s.leaderHint());
        return node == s.leaderHint() ? s : new ClientFrame.GroupStatus(s.group(), s.role(), s.promisedEpoch(), node,
                s.commitSlot(), s.appliedSlot(), s.snapshotSlot(), s.state(), s.lease(), s.coding());
    }

    private static int node(ReplicaRoutes routes, int group, int replica) {
        if (routes == null || replica < 0 || group < 0 || group >= routes.groups()) {
            return replica;
        }
        return routes.map(group).nodeOf(replica);
    }
}
