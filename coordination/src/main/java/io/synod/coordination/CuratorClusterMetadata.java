package io.synod.coordination;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link ClusterMetadata} on ZooKeeper through Curator. Watches run on one "synod-metadata" thread. */
public final class CuratorClusterMetadata implements ClusterMetadata {
    private static final Logger log = LoggerFactory.getLogger(CuratorClusterMetadata.class);

    private final CuratorFramework client;
    private final ClusterPaths paths;
    private final ZooKeeperAccess access;
    private final ScheduledExecutorService dispatcher;
    private final List<CuratorCache> caches = new CopyOnWriteArrayList<>();

    /** @param access the identity {@code client} authenticated with: decides what an existing cluster's ACL must be */
    public CuratorClusterMetadata(CuratorFramework client, ClusterPaths paths, ZooKeeperAccess access) {
        this.client = client;
        this.paths = paths;
        this.access = access;
        this.dispatcher = Zk.dispatcher("synod-metadata-" + paths.cluster());
    }

    @Override
    public String cluster() {
        return paths.cluster();
    }

    @Override
    public boolean createCluster(ClusterSpec spec) {
        String what = "create cluster '" + paths.cluster() + "'";
        return Zk.call(what, () -> {
            try {
                client.create().forPath("/synod");
            } catch (KeeperException.NodeExistsException alreadyThere) {
                // shared by every cluster on this ensemble
            }
            List<CuratorOp> ops = new ArrayList<>();
            ops.add(client.transactionOp().create().forPath(paths.root(), ZnodeCodec.encodeClusterSpec(spec)));
            ops.add(client.transactionOp().create().forPath(paths.members()));
            ops.add(client.transactionOp().create().forPath(paths.groups()));
            for (int g = 0; g < spec.groups(); g++) {
                ops.add(client.transactionOp().create().forPath(paths.group(g)));
                ops.add(client.transactionOp().create().forPath(paths.election(g)));
                ops.add(client.transactionOp().create().forPath(paths.epoch(g),
                        ZnodeCodec.encodeEpoch(new EpochRecord(0, -1))));
                ops.add(client.transactionOp().create().forPath(paths.config(g),
                        ZnodeCodec.encodeGroupConfig(spec.groupConfig(g))));
            }
            ops.add(client.transactionOp().create().forPath(paths.shards(), ShardMap.uniform(spec.groups()).encode()));
            try {
                client.transaction().forOperations(ops);
                log.info("created cluster '{}' with {} groups on members {} ({})", paths.cluster(), spec.groups(),
                        spec.members(), access.authenticated() ? "writable by digest:" + access.user() + " only"
                                : "open to any ZooKeeper client");
                return true;
            } catch (KeeperException.NodeExistsException | KeeperException.NoAuthException e) {
                // NoAuth: /synod lets only others create; the root's own ACL below gives the clearer error.
                ClusterSpec existing = clusterSpec().orElseThrow(() -> e instanceof KeeperException.NoAuthException
                        ? new ClusterAclException(what + ": ZooKeeper refused the creation (NoAuth for " + e.getPath()
                                + "): the ACL of " + ClusterAcls.PARENT + " lets only others create clusters")
                        : new CoordinationException(what + ": znode " + e.getPath() + " exists but " + paths.root()
                                + " does not"));
                if (!existing.equals(spec)) {
                    throw new CoordinationException("cluster '" + paths.cluster() + "' already exists with " + existing
                            + ", not " + spec);
                }
                ClusterAcls.checkExisting(client, paths, access);
                return false;
            }
        });
    }

    @Override
    public Optional<ClusterSpec> clusterSpec() {
        return Zk.call("read cluster spec", () -> {
            try {
                byte[] data = client.getData().forPath(paths.root());
                return Optional.of(Zk.decode(paths.root(), data, ZnodeCodec::decodeClusterSpec));
            } catch (KeeperException.NoNodeException e) {
                return Optional.empty();
            }
        });
    }

    @Override
    public int groupCount() {
        return clusterSpec().orElseThrow(() -> new CoordinationException("cluster '" + paths.cluster()
                + "' does not exist (no znode " + paths.root() + ")")).groups();
    }

    private <T> Versioned<T> read(String what, String path, Function<byte[], T> decoder) {
        return Zk.call(what, () -> {
            Stat stat = new Stat();
            byte[] data = client.getData().storingStatIn(stat).forPath(path);
            return new Versioned<>(Zk.decode(path, data, decoder), stat.getVersion());
        });
    }

    private boolean compareAndSet(String what, String path, int expectedVersion, byte[] data) {
        return Zk.call(what, () -> {
            try {
                client.setData().withVersion(expectedVersion).forPath(path, data);
                return true;
            } catch (KeeperException.BadVersionException conflict) {
                return false;
            }
        });
    }

    @Override
    public Versioned<GroupConfig> groupConfig(int group) {
        return read("read group " + group + " config", paths.config(group), ZnodeCodec::decodeGroupConfig);
    }

    @Override
    public boolean compareAndSetGroupConfig(int group, int expectedVersion, GroupConfig next) {
        if (next.group() != group) {
            throw new IllegalArgumentException("config of group " + next.group() + " cannot be stored as group " + group);
        }
        return compareAndSet("write group " + group + " config", paths.config(group), expectedVersion,
                ZnodeCodec.encodeGroupConfig(next));
    }

    @Override
    public Versioned<EpochRecord> epoch(int group) {
        return read("read group " + group + " epoch", paths.epoch(group), ZnodeCodec::decodeEpoch);
    }

    @Override
    public Versioned<ShardMap> shardMap() {
        return read("read shard map", paths.shards(), ShardMap::decode);
    }

    @Override
    public boolean compareAndSetShardMap(int expectedVersion, ShardMap next) {
        int groups = groupCount();
        if (next.groupCount() != groups) {
            throw new IllegalArgumentException("shard map has " + next.groupCount() + " groups, cluster '"
                    + paths.cluster() + "' has " + groups);
        }
        Versioned<ShardMap> current = shardMap();
        if (current.version() != expectedVersion) {
            return false;
        }
        if (next.generation() <= current.value().generation()) {
            throw new IllegalArgumentException("shard map generation must grow: stored " + current.value().generation()
                    + ", new " + next.generation());
        }
        return compareAndSet("write shard map", paths.shards(), expectedVersion, next.encode());
    }

    @Override
    public Optional<NodeIncarnation> incarnation(int nodeId) {
        String path = paths.incarnation(nodeId);
        return Zk.call("read node " + nodeId + " incarnation", () -> {
            try {
                NodeIncarnation found = Zk.decode(path, client.getData().forPath(path), ZnodeCodec::decodeIncarnation);
                if (found.nodeId() != nodeId) {
                    throw new MetadataFormatException("znode " + path + ": holds the incarnation of node " + found.nodeId());
                }
                return Optional.of(found);
            } catch (KeeperException.NoNodeException e) {
                return Optional.empty();
            }
        });
    }

    @Override
    public NodeIncarnation recordIncarnation(NodeIncarnation incarnation) {
        String path = paths.incarnation(incarnation.nodeId());
        Zk.call("record node " + incarnation.nodeId() + " incarnation", () -> {
            try {
                client.create().forPath(paths.incarnations()); // absent in clusters created before incarnations
            } catch (KeeperException.NodeExistsException alreadyThere) {
                // created by the first node that recorded its incarnation
            }
            try {
                client.create().forPath(path, ZnodeCodec.encodeIncarnation(incarnation));
                log.info("recorded incarnation {} of node {} at {}", incarnation.id(), incarnation.nodeId(), path);
            } catch (KeeperException.NodeExistsException recordedBefore) {
                // compared by the caller through the value read back below
            }
            return null;
        });
        return incarnation(incarnation.nodeId()).orElseThrow(() -> new CoordinationException(
                "record node " + incarnation.nodeId() + " incarnation: znode " + path + " vanished after its creation"));
    }

    @Override
    public NodeIncarnation replaceIncarnation(NodeIncarnation expected, NodeIncarnation next) {
        if (expected.nodeId() != next.nodeId()) {
            throw new IllegalArgumentException("incarnation of node " + next.nodeId() + " cannot replace node "
                    + expected.nodeId() + "'s");
        }
        String path = paths.incarnation(next.nodeId());
        boolean replaced = Zk.call("replace node " + next.nodeId() + " incarnation", () -> {
            Stat stat = new Stat();
            NodeIncarnation found = Zk.decode(path, client.getData().storingStatIn(stat).forPath(path),
                    ZnodeCodec::decodeIncarnation);
            if (!found.equals(expected)) {
                return false;
            }
            try {
                client.setData().withVersion(stat.getVersion()).forPath(path, ZnodeCodec.encodeIncarnation(next));
                log.info("replaced incarnation {} of node {} by {} at {}", expected.id(), next.nodeId(), next.id(), path);
                return true;
            } catch (KeeperException.BadVersionException conflict) {
                return false;
            }
        });
        return replaced ? next : incarnation(next.nodeId()).orElseThrow(() -> new CoordinationException(
                "replace node " + next.nodeId() + " incarnation: znode " + path + " vanished"));
    }

    @Override
    public Versioned<ReplicaMap> replicaMap(int group) {
        String path = paths.replicaMap(group);
        return Zk.call("read group " + group + " replica map", () -> {
            try {
                Stat stat = new Stat();
                byte[] data = client.getData().storingStatIn(stat).forPath(path);
                return new Versioned<>(Zk.decode(path, data, ZnodeCodec::decodeReplicaMap), stat.getVersion());
            } catch (KeeperException.NoNodeException e) {
                return new Versioned<>(ReplicaMap.identity(group, clusterSpec().orElseThrow(() -> new CoordinationException(
                        "cluster '" + paths.cluster() + "' does not exist")).members().size()), -1);
            }
        });
    }

    @Override
    public boolean compareAndSetReplicaMap(int group, int expectedVersion, ReplicaMap next) {
        if (next.group() != group) {
            throw new IllegalArgumentException("replica map of group " + next.group() + " cannot be stored as group " + group);
        }
        String path = paths.replicaMap(group);
        if (expectedVersion >= 0) {
            return compareAndSet("write group " + group + " replica map", path, expectedVersion,
                    ZnodeCodec.encodeReplicaMap(next));
        }
        return Zk.call("create group " + group + " replica map", () -> {
            try {
                client.create().forPath(paths.replicaMaps());
            } catch (KeeperException.NodeExistsException alreadyThere) {
                // created by the first re-join of any group
            }
            try {
                client.create().forPath(path, ZnodeCodec.encodeReplicaMap(next));
                return true;
            } catch (KeeperException.NodeExistsException conflict) {
                return false;
            }
        });
    }

    @Override
    public void watchReplicaMap(int group, Consumer<Versioned<ReplicaMap>> listener) {
        watch(paths.replicaMap(group), ZnodeCodec::decodeReplicaMap, listener);
    }

    @Override
    public Optional<Versioned<Placement>> placement() {
        String path = paths.placement();
        return Zk.call("read placement", () -> {
            try {
                Stat stat = new Stat();
                byte[] data = client.getData().storingStatIn(stat).forPath(path);
                return Optional.of(new Versioned<>(Zk.decode(path, data, ZnodeCodec::decodePlacement), stat.getVersion()));
            } catch (KeeperException.NoNodeException e) {
                return Optional.empty();
            }
        });
    }

    @Override
    public boolean compareAndSetPlacement(int expectedVersion, Placement next) {
        String path = paths.placement();
        byte[] data = ZnodeCodec.encodePlacement(next);
        if (expectedVersion >= 0) {
            return compareAndSet("write placement", path, expectedVersion, data);
        }
        return Zk.call("create placement", () -> {
            try {
                client.create().forPath(path, data);
                return true;
            } catch (KeeperException.NodeExistsException conflict) {
                return false;
            }
        });
    }

    @Override
    public void watchPlacement(Consumer<Versioned<Placement>> listener) {
        watch(paths.placement(), ZnodeCodec::decodePlacement, listener);
    }

    @Override
    public void watchShardMap(Consumer<Versioned<ShardMap>> listener) {
        watch(paths.shards(), ShardMap::decode, listener);
    }

    @Override
    public void watchGroupConfig(int group, Consumer<Versioned<GroupConfig>> listener) {
        watch(paths.config(group), ZnodeCodec::decodeGroupConfig, listener);
    }

    private <T> void watch(String path, Function<byte[], T> decoder, Consumer<Versioned<T>> listener) {
        CuratorCache cache = CuratorCache.build(client, path, CuratorCache.Options.SINGLE_NODE_CACHE);
        CuratorCacheListener onChange = CuratorCacheListener.builder()
                .forCreatesAndChanges((before, after) -> deliver(path, after, decoder, listener))
                .build();
        cache.listenable().addListener(onChange, dispatcher);
        caches.add(cache);
        cache.start();
    }

    private static <T> void deliver(String path, ChildData node, Function<byte[], T> decoder, Consumer<Versioned<T>> listener) {
        T value;
        try {
            value = Zk.decode(path, node.getData(), decoder);
        } catch (MetadataFormatException e) {
            log.error("ignoring malformed update: {}", e.getMessage());
            return;
        }
        try {
            listener.accept(new Versioned<>(value, node.getStat().getVersion()));
        } catch (RuntimeException e) {
            log.error("metadata listener for {} failed", path, e);
        }
    }

    @Override
    public void close() {
        caches.forEach(CuratorCache::close);
        dispatcher.shutdown();
        try {
            dispatcher.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
