package io.synod.coordination;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Membership} on ZooKeeper. This node's member znode is a Curator {@link PersistentNode}
 * in EPHEMERAL mode, which re-creates it after a session loss with the latest data. Every member
 * znode is watched through a {@link CuratorCache}; listeners run on one "synod-members" thread,
 * which also publishes coalesced progress.
 */
public final class CuratorMembership implements Membership {
    private static final Logger log = LoggerFactory.getLogger(CuratorMembership.class);

    private final CuratorFramework client;
    private final ClusterPaths paths;
    private final CoordinationOptions options;
    private final ScheduledExecutorService dispatcher;
    private final CuratorCache cache;
    private final List<MembershipListener> listeners = new CopyOnWriteArrayList<>();
    private final Map<Integer, GroupProgress> progress = new ConcurrentHashMap<>();
    private final AtomicBoolean dirty = new AtomicBoolean();
    private volatile Map<Integer, MemberInfo> members = Map.of();
    /** Malformed member znodes already reported, as path@mzxid: each bad version is logged once. */
    private final Set<String> reported = new HashSet<>();
    private MemberInfo self;
    private PersistentNode node;

    public CuratorMembership(CuratorFramework client, ClusterPaths paths, CoordinationOptions options) {
        this.client = client;
        this.paths = paths;
        this.options = options;
        this.dispatcher = Zk.dispatcher("synod-members-" + paths.cluster());
        this.cache = CuratorCache.build(client, paths.members());
        cache.listenable().addListener(CuratorCacheListener.builder().forAll((type, before, after) -> refresh())
                .forInitialized(this::refresh).build(), dispatcher);
        cache.start();
    }

    @Override
    public synchronized void register(MemberInfo me) {
        Objects.requireNonNull(me, "me");
        if (self != null) {
            throw new IllegalStateException("node " + self.nodeId() + " is already registered");
        }
        String path = paths.member(me.nodeId());
        Stat existing = Zk.call("check member znode", () -> client.checkExists().forPath(path));
        long ourSession = Zk.call("read session id", () -> client.getZookeeperClient().getZooKeeper().getSessionId());
        if (existing != null && existing.getEphemeralOwner() != ourSession) {
            // A previous incarnation whose session has not expired yet, or a second node with the same id.
            log.warn("member znode {} is held by another session (0x{}); taking it over", path,
                    Long.toHexString(existing.getEphemeralOwner()));
        }
        self = me;
        progress.putAll(me.progress());
        node = new PersistentNode(client, CreateMode.EPHEMERAL, false, path, ZnodeCodec.encodeMember(current()));
        node.start();
        boolean created = Zk.call("create member znode", () ->
                node.waitForInitialCreate(options.connectionTimeout().toMillis(), TimeUnit.MILLISECONDS));
        if (!created) {
            throw new CoordinationException("member znode " + path + " was not created within "
                    + options.connectionTimeout().toMillis() + " ms");
        }
        long every = options.progressPublish().toNanos();
        dispatcher.scheduleWithFixedDelay(this::publishIfDirty, every, every, TimeUnit.NANOSECONDS);
    }

    private MemberInfo current() {
        return new MemberInfo(self.nodeId(), self.peerAddress(), self.clientAddress(), self.zone(), self.version(),
                new TreeMap<>(progress));
    }

    @Override
    public void updateProgress(int group, GroupProgress groupProgress) {
        progress.put(group, Objects.requireNonNull(groupProgress, "groupProgress"));
        dirty.set(true);
    }

    private void publishIfDirty() {
        if (!dirty.getAndSet(false)) {
            return;
        }
        try {
            PersistentNode n;
            MemberInfo info;
            synchronized (this) {
                n = node;
                info = current();
            }
            if (n != null) {
                n.setData(ZnodeCodec.encodeMember(info)); // asynchronous; kept for re-creation too
            }
        } catch (Exception e) {
            dirty.set(true);
            log.warn("publishing progress failed, will retry: {}", e.toString());
        }
    }

    @Override
    public void flush() {
        PersistentNode n;
        byte[] data;
        synchronized (this) {
            if (node == null) {
                throw new IllegalStateException("flush before register");
            }
            dirty.set(false);
            n = node;
            data = ZnodeCodec.encodeMember(current());
        }
        Zk.call("publish member znode", () -> {
            n.setData(data);
            return client.setData().forPath(n.getActualPath(), data);
        });
    }

    private void refresh() {
        Map<Integer, MemberInfo> next = new HashMap<>();
        cache.stream().forEach(child -> decodeChild(child, next));
        Map<Integer, MemberInfo> snapshot = Map.copyOf(next);
        if (snapshot.equals(members)) {
            return;
        }
        members = snapshot;
        for (MembershipListener l : listeners) {
            notify(l, snapshot);
        }
    }

    private void decodeChild(ChildData child, Map<Integer, MemberInfo> into) {
        String path = child.getPath();
        if (!paths.members().equals(ZKPaths.getPathAndNode(path).getPath())) {
            return; // the parent itself
        }
        try {
            MemberInfo info = Zk.decode(path, child.getData(), ZnodeCodec::decodeMember);
            String name = ZKPaths.getNodeFromPath(path);
            if (!name.equals(Integer.toString(info.nodeId()))) {
                throw new MetadataFormatException("znode " + path + " names node " + info.nodeId());
            }
            into.put(info.nodeId(), info);
        } catch (MetadataFormatException e) {
            String key = path + "@" + (child.getStat() == null ? 0 : child.getStat().getMzxid());
            if (reported.add(key)) {
                log.error("ignoring malformed member: {}", e.getMessage());
            }
        }
    }

    private static void notify(MembershipListener l, Map<Integer, MemberInfo> snapshot) {
        try {
            l.onMembersChanged(snapshot);
        } catch (RuntimeException e) {
            log.error("membership listener failed", e);
        }
    }

    @Override
    public Map<Integer, MemberInfo> members() {
        return members;
    }

    @Override
    public void addListener(MembershipListener listener) {
        dispatcher.execute(() -> {
            listeners.add(listener);
            notify(listener, members);
        });
    }

    @Override
    public void close() {
        PersistentNode n;
        synchronized (this) {
            n = node;
            node = null;
        }
        if (n != null) {
            try {
                n.close();
            } catch (Exception e) {
                log.warn("closing member znode failed: {}", e.toString());
            }
        }
        cache.close();
        dispatcher.shutdown();
        try {
            dispatcher.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
