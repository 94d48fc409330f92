package io.synod.coordination;

import java.util.Objects;
import java.util.UUID;

/**
 * Content of {@code /synod/<cluster>/incarnations/<node>}: the random id a node drew on the first start of its data
 * directory. A node whose directory holds no record of it while ZooKeeper has one lost its acceptor state (its
 * promises and accepted values) and must not rejoin as a fresh acceptor (docs/server.md, "Node identity").
 */
public record NodeIncarnation(int nodeId, UUID id) {
    public NodeIncarnation {
        if (nodeId < 0 || nodeId > ClusterPaths.MAX_NODE_ID) {
            throw new IllegalArgumentException("node id must be 0.." + ClusterPaths.MAX_NODE_ID + ", got " + nodeId);
        }
        Objects.requireNonNull(id, "incarnation id");
    }
}
