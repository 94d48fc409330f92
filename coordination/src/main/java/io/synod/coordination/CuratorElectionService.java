package io.synod.coordination;

import io.synod.protocol.ElectionEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ElectionService} on a Curator {@link LeaderLatch} per group (PaxStore, Tan et al., NPC 2014,
 * §3.2: ZooKeeper elects the leader of each group, the leader's epoch orders its ballots).
 *
 * <p><b>Rules.</b> All group state lives on one dispatcher thread ("synod-election-&lt;node&gt;"),
 * which is also the thread that calls listeners.
 * <ul>
 *   <li><i>Winning.</i> When the latch names this node, it reads the epoch znode and writes epoch+1
 *       in one ZooKeeper transaction that also checks that its own latch znode still exists, with
 *       the version it read (compare-and-set; a conflict re-reads). Only then is {@code Elected}
 *       delivered. A session that died in between fails the check and delivers nothing.</li>
 *   <li><i>Preferring the up-to-date member.</i> Before allocating, the winner compares its published
 *       {@link GroupProgress} with that of the other latch participants; if one is strictly ahead,
 *       it leaves the latch and re-joins after {@link CoordinationOptions#upToDateDeferral()}. After
 *       {@link CoordinationOptions#maxConsecutiveDeferrals()} deferrals in a row it takes the lead
 *       regardless. This is a speed preference only.</li>
 *   <li><i>Preferring the less loaded member.</i> Likewise, the winner defers to a live participant
 *       that has promised its epoch or a newer one for the group and leads fewer groups than it does
 *       (counted from this node's view of the latches), so that leaderships spread over the nodes; the
 *       same deferral bound applies. The server's leader balancer moves leaderships that still pile up.</li>
 *   <li><i>Stepping down.</i> On session LOST, on a SUSPENDED connection that lasts longer than
 *       {@link CoordinationOptions#suspendedStepDown()}, on the latch's notLeader, on {@link #resign}
 *       and on {@link #leave}, the leader gets {@code LeaderIs(-1)} at once and its latch is closed;
 *       it re-joins (at the back of the queue) when connected again.</li>
 *   <li><i>Following.</i> A non-leader watches the latch participants and is told {@code LeaderIs}
 *       of the first one (or -1 when there is none). A leader ignores these hints: its latch and the
 *       connection state alone end its leadership, so a lagging cache cannot depose it spuriously.</li>
 * </ul>
 * The Curator client should use {@code SessionConnectionStateErrorPolicy} (the factory does) so that
 * the latch itself does not drop leadership on every SUSPENDED; with the standard policy the
 * step-down simply happens at the first SUSPENDED.
 */
public final class CuratorElectionService implements ElectionService {
    private static final Logger log = LoggerFactory.getLogger(CuratorElectionService.class);
    private static final int MAX_EPOCH_ATTEMPTS = 16;
    private static final long EPOCH_RETRY_MILLIS = 1000;
    private static final String LATCH_NAME = "latch-";

    private final CuratorFramework client;
    private final ClusterPaths paths;
    private final int nodeId;
    private final CoordinationOptions options;
    private final Membership membership;
    private final ScheduledExecutorService dispatcher;
    private final ConnectionStateListener connectionListener;
    /** Only touched on the dispatcher thread. */
    private final Map<Integer, Group> groups = new HashMap<>();
    /** Read by {@link #leaderOf} / {@link #epochOf} from any thread. */
    private final Map<Integer, Long> epochs = new ConcurrentHashMap<>();
    private final Map<Integer, Integer> leaders = new ConcurrentHashMap<>();
    private boolean connected;
    private ScheduledFuture<?> suspendedTimer;
    private volatile boolean closed;
    /** So that a listener calling back into the service runs inline instead of waiting on itself. */
    private volatile Thread dispatcherThread;

    /** Per-group state; dispatcher thread only. */
    private final class Group {
        final int id;
        final ElectionListener listener;
        final CuratorCache participants;
        final EpochWatch epochWatch;
        LeaderLatch latch;
        int latchGeneration;
        boolean leading;
        long epoch = -1;
        int announced = Integer.MIN_VALUE;
        int deferrals;
        boolean wantLatch = true;
        ScheduledFuture<?> rejoinTimer;

        Group(int id, ElectionListener listener) {
            this.id = id;
            this.listener = listener;
            this.participants = CuratorCache.build(client, paths.election(id));
            this.epochWatch = new EpochWatch(client, paths.epoch(id), dispatcher, event -> {
                if (groups.get(id) == this) {
                    deliver(this, event);
                }
            });
        }
    }

    /**
     * @param membership source of the members' published progress for the up-to-date preference;
     *                   may be {@code null} (no preference)
     */
    public CuratorElectionService(CuratorFramework client, ClusterPaths paths, int nodeId,
                                  CoordinationOptions options, Membership membership) {
        if (nodeId < 0 || nodeId > ClusterPaths.MAX_NODE_ID) {
            throw new IllegalArgumentException("node id must be 0.." + ClusterPaths.MAX_NODE_ID + ", got " + nodeId);
        }
        this.client = client;
        this.paths = paths;
        this.nodeId = nodeId;
        this.options = options;
        this.membership = membership;
        this.dispatcher = Zk.dispatcher("synod-election-" + nodeId);
        dispatcher.execute(() -> dispatcherThread = Thread.currentThread());
        this.connected = client.getZookeeperClient().isConnected();
        this.connectionListener = (c, state) -> onConnectionState(state);
        client.getConnectionStateListenable().addListener(connectionListener, dispatcher);
    }

    @Override
    public int nodeId() {
        return nodeId;
    }

    @Override
    public void join(int group, ElectionListener listener) {
        if (closed) {
            throw new IllegalStateException("election service of node " + nodeId + " is closed");
        }
        // Fail fast on a group that was never created rather than hold a latch that can never allocate.
        Stat epochNode = Zk.call("join group " + group, () -> client.checkExists().forPath(paths.epoch(group)));
        if (epochNode == null) {
            throw new CoordinationException("cannot join group " + group + ": no epoch znode " + paths.epoch(group)
                    + " (was the cluster created with that many groups?)");
        }
        onDispatcher(() -> {
            if (groups.containsKey(group)) {
                throw new IllegalStateException("node " + nodeId + " already joined group " + group);
            }
            Group g = new Group(group, listener);
            groups.put(group, g);
            g.participants.listenable().addListener(CuratorCacheListener.builder()
                    .forAll((type, before, after) -> followerHint(g))
                    .forInitialized(() -> followerHint(g)).build(), dispatcher);
            g.participants.start();
            g.epochWatch.start();
            startLatch(g);
            return null;
        });
    }

    @Override
    public void resign(int group) {
        dispatcher.execute(() -> {
            Group g = groups.get(group);
            if (g == null || !g.leading) {
                return;
            }
            log.info("node {} resigns group {} (epoch {})", nodeId, group, g.epoch);
            stepDown(g, "resigned");
            closeLatch(g);
            startLatch(g);
        });
    }

    @Override
    public void leave(int group) {
        onDispatcher(() -> {
            Group g = groups.remove(group);
            if (g != null) {
                g.wantLatch = false;
                stepDown(g, "left the group");
                closeLatch(g);
                g.participants.close();
                g.epochWatch.close();
                leaders.remove(group);
            }
            return null;
        });
    }

    @Override
    public int leaderOf(int group) {
        return leaders.getOrDefault(group, -1);
    }

    @Override
    public long epochOf(int group) {
        return epochs.getOrDefault(group, -1L);
    }

    // ---- latch lifecycle (dispatcher thread) ----

    private void startLatch(Group g) {
        if (!g.wantLatch || closed) {
            return;
        }
        if (g.rejoinTimer != null) {
            g.rejoinTimer.cancel(false);
            g.rejoinTimer = null;
        }
        if (!connected) {
            return; // onConnectionState starts it when the connection is back
        }
        if (g.latch != null) {
            return;
        }
        int generation = ++g.latchGeneration;
        LeaderLatch latch = new LeaderLatch(client, paths.election(g.id), Integer.toString(nodeId),
                LeaderLatch.CloseMode.SILENT);
        latch.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                onLatchLeader(g, generation);
            }

            @Override
            public void notLeader() {
                onLatchLost(g, generation);
            }
        }, dispatcher);
        g.latch = latch;
        try {
            latch.start();
        } catch (Exception e) {
            log.error("node {}: cannot start the election latch of group {}: {}", nodeId, g.id, e.toString());
            g.latch = null;
        }
    }

    private void closeLatch(Group g) {
        LeaderLatch latch = g.latch;
        g.latch = null;
        g.latchGeneration++;
        if (latch != null && latch.getState() == LeaderLatch.State.STARTED) {
            try {
                latch.close(); // deletes our latch znode (guaranteed, retried after reconnect)
            } catch (Exception e) {
                log.warn("node {}: closing the latch of group {} failed: {}", nodeId, g.id, e.toString());
            }
        }
    }

    private void onLatchLeader(Group g, int generation) {
        if (generation != g.latchGeneration || g.latch == null || !g.latch.hasLeadership() || g.leading) {
            return;
        }
        if (shouldDefer(g)) {
            g.deferrals++;
            closeLatch(g);
            long delay = options.upToDateDeferral().toNanos();
            g.rejoinTimer = dispatcher.schedule(() -> {
                g.rejoinTimer = null;
                if (groups.get(g.id) == g) {
                    startLatch(g);
                }
            }, delay, TimeUnit.NANOSECONDS);
            return;
        }
        long epoch = allocateEpoch(g);
        boolean stillHeld = generation == g.latchGeneration && g.latch != null && g.latch.hasLeadership();
        if (epoch < 0 && stillHeld) {
            // A transient failure (connection loss, malformed epoch znode): try again while we hold the latch.
            dispatcher.schedule(() -> onLatchLeader(g, generation), EPOCH_RETRY_MILLIS, TimeUnit.MILLISECONDS);
            return;
        }
        if (epoch < 0 || !stillHeld) {
            return;
        }
        g.leading = true;
        g.epoch = epoch;
        g.deferrals = 0;
        epochs.put(g.id, epoch);
        leaders.put(g.id, nodeId);
        g.announced = nodeId;
        log.info("node {} leads group {} with epoch {}", nodeId, g.id, epoch);
        deliver(g, new ElectionEvent.Elected(epoch));
    }

    private void onLatchLost(Group g, int generation) {
        if (generation != g.latchGeneration) {
            return;
        }
        stepDown(g, "lost the election latch");
        followerHint(g);
    }

    /**
     * Compare-and-set the epoch znode to one more than it holds, in a transaction that also checks our
     * latch znode exists: the allocation happens only while this session still holds its place.
     *
     * @return the new epoch, or -1 if this node no longer holds the latch or the allocation failed
     */
    private long allocateEpoch(Group g) {
        String epochPath = paths.epoch(g.id);
        for (int attempt = 0; attempt < MAX_EPOCH_ATTEMPTS; attempt++) {
            String ourPath = g.latch == null ? null : g.latch.getOurPath();
            if (ourPath == null) {
                return -1;
            }
            try {
                Stat stat = new Stat();
                byte[] data = client.getData().storingStatIn(stat).forPath(epochPath);
                EpochRecord current = Zk.decode(epochPath, data, ZnodeCodec::decodeEpoch);
                long next = current.epoch() + 1;
                client.transaction().forOperations(
                        client.transactionOp().check().forPath(ourPath),
                        client.transactionOp().setData().withVersion(stat.getVersion())
                                .forPath(epochPath, ZnodeCodec.encodeEpoch(new EpochRecord(next, nodeId))));
                return next;
            } catch (KeeperException.BadVersionException conflict) {
                // another allocator (a deposed leader's late attempt) got in first: re-read
            } catch (KeeperException.NoNodeException gone) {
                log.warn("node {}: group {} epoch not allocated, {} is gone", nodeId, g.id, gone.getPath());
                return -1;
            } catch (MetadataFormatException e) {
                log.error("node {}: cannot lead group {}: {}", nodeId, g.id, e.getMessage());
                return -1;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            } catch (Exception e) {
                log.warn("node {}: allocating an epoch for group {} failed: {}", nodeId, g.id, e.toString());
                return -1;
            }
        }
        log.error("node {}: group {} epoch compare-and-set lost {} times in a row", nodeId, g.id, MAX_EPOCH_ATTEMPTS);
        return -1;
    }

    /** PaxStore's preference: a live participant with a strictly greater (epoch, last slot) should lead. */
    private boolean shouldDefer(Group g) {
        if (membership == null || options.upToDateDeferral().isZero()
                || g.deferrals >= options.maxConsecutiveDeferrals()) {
            return false;
        }
        Map<Integer, MemberInfo> members = membership.members();
        MemberInfo me = members.get(nodeId);
        GroupProgress mine = me == null ? GroupProgress.NONE : me.progressOf(g.id);
        Collection<Participant> participants;
        try {
            participants = g.latch.getParticipants();
        } catch (Exception e) {
            return false;
        }
        for (Participant p : participants) {
            int id = parseId(p.getId());
            MemberInfo other = members.get(id);
            if (id != nodeId && other != null && other.progressOf(g.id).compareTo(mine) > 0) {
                log.info("node {} defers group {} to more up-to-date node {} ({} > {})", nodeId, g.id, id,
                        other.progressOf(g.id), mine);
                return true;
            }
        }
        // Leaders spread: a live participant that has promised this node's epoch or a newer one (it is not
        // behind by a whole leadership) and leads fewer groups than this node gets the group instead.
        int ownLeads = leadCount(nodeId);
        for (Participant p : participants) {
            int id = parseId(p.getId());
            MemberInfo other = members.get(id);
            if (id != nodeId && other != null && other.progressOf(g.id).epoch() >= mine.epoch()
                    && leadCount(id) < ownLeads) {
                log.info("node {} defers group {} to less loaded node {} (it leads {}, this node {})", nodeId, g.id,
                        id, leadCount(id), ownLeads);
                return true;
            }
        }
        return false;
    }

    /** How many joined groups this node believes {@code node} leads (its own: the ones it holds an epoch for). */
    private int leadCount(int node) {
        int n = 0;
        for (Group other : groups.values()) {
            if (node == nodeId ? other.leading : other.announced == node) {
                n++;
            }
        }
        return n;
    }

    // ---- step-down and hints (dispatcher thread) ----

    private void stepDown(Group g, String why) {
        if (!g.leading) {
            return;
        }
        log.info("node {} steps down from group {} (epoch {}): {}", nodeId, g.id, g.epoch, why);
        g.leading = false;
        g.epoch = -1;
        epochs.remove(g.id);
        leaders.put(g.id, -1);
        g.announced = -1;
        deliver(g, new ElectionEvent.LeaderIs(-1));
    }

    /** Non-leaders follow the first latch participant (lowest sequence number). */
    private void followerHint(Group g) {
        if (groups.get(g.id) != g || g.leading) {
            return;
        }
        String first = null;
        int leader = -1;
        for (ChildData child : (Iterable<ChildData>) g.participants.stream()::iterator) {
            String name = ZKPaths.getNodeFromPath(child.getPath());
            int at = name.lastIndexOf(LATCH_NAME);
            if (at < 0) {
                continue; // the election node itself
            }
            String sequence = name.substring(at + LATCH_NAME.length());
            if (first == null || sequence.compareTo(first) < 0) {
                first = sequence;
                leader = child.getData() == null ? -1 : parseId(new String(child.getData(), StandardCharsets.UTF_8));
            }
        }
        if (leader == nodeId) {
            return; // we hold the latch: Elected follows once the epoch is allocated
        }
        if (leader != g.announced) {
            // The deferral count is not reset when another node wins: a leader cut off from its peers
            // publishes the highest last slot (its own unchosen proposals), wins every election the others
            // defer to it, fails phase 1 and resigns; resetting here kept the others deferring for as long
            // as the cut lasted (found by synod nemesis, leader-isolation). It resets when this node leads.
            g.announced = leader;
            leaders.put(g.id, leader);
            deliver(g, new ElectionEvent.LeaderIs(leader));
        }
    }

    private static int parseId(String id) {
        try {
            int v = Integer.parseInt(id);
            return v >= 0 && v <= ClusterPaths.MAX_NODE_ID ? v : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private void deliver(Group g, ElectionEvent event) {
        try {
            g.listener.onElection(g.id, event);
        } catch (RuntimeException e) {
            log.error("node {}: election listener of group {} failed on {}", nodeId, g.id, event, e);
        }
    }

    // ---- connection state (dispatcher thread) ----

    private void onConnectionState(ConnectionState state) {
        switch (state) {
            case CONNECTED, RECONNECTED -> {
                connected = true;
                cancelSuspendedTimer();
                for (Group g : groups.values()) {
                    startLatch(g);
                }
            }
            case SUSPENDED -> {
                connected = false;
                cancelSuspendedTimer();
                long bound = options.suspendedStepDown().toNanos();
                if (bound == 0) {
                    relinquishAll("connection to ZooKeeper suspended");
                } else {
                    suspendedTimer = dispatcher.schedule(() -> {
                        suspendedTimer = null;
                        if (!connected) {
                            relinquishAll("connection to ZooKeeper suspended for more than "
                                    + options.suspendedStepDown().toMillis() + " ms");
                        }
                    }, bound, TimeUnit.NANOSECONDS);
                }
            }
            case LOST -> {
                connected = false;
                cancelSuspendedTimer();
                relinquishAll("ZooKeeper session lost");
            }
            case READ_ONLY -> {
                // Synod never enables read-only mode; treat it like SUSPENDED would be too eager here
            }
        }
    }

    private void cancelSuspendedTimer() {
        if (suspendedTimer != null) {
            suspendedTimer.cancel(false);
            suspendedTimer = null;
        }
    }

    /** Step down everywhere and drop the latches; they are re-created on the next (RE)CONNECTED. */
    private void relinquishAll(String why) {
        for (Group g : groups.values()) {
            stepDown(g, why);
            closeLatch(g);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        try {
            onDispatcher(() -> {
                closed = true;
                client.getConnectionStateListenable().removeListener(connectionListener);
                cancelSuspendedTimer();
                List<Group> all = new ArrayList<>(groups.values());
                for (Group g : all) {
                    g.wantLatch = false;
                    stepDown(g, "election service closed");
                    closeLatch(g);
                    g.participants.close();
                    g.epochWatch.close();
                g.epochWatch.close();
                }
                groups.clear();
                return null;
            });
        } finally {
            closed = true;
            dispatcher.shutdown();
            try {
                if (Thread.currentThread() != dispatcherThread) {
                    dispatcher.awaitTermination(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Runs {@code task} on the dispatcher and waits for it (inline when already there). */
    private void onDispatcher(Callable<Void> task) {
        if (Thread.currentThread() == dispatcherThread) {
            try {
                task.call();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new CoordinationException("node " + nodeId + ": " + e, e);
            }
            return;
        }
        Future<Void> future = dispatcher.submit(task);
        try {
            future.get(options.connectionTimeout().toMillis() * 2, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordinationException("node " + nodeId + ": interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new CoordinationException("node " + nodeId + ": " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new CoordinationException("node " + nodeId + ": election dispatcher did not answer within "
                    + options.connectionTimeout().toMillis() * 2 + " ms", e);
        }
    }
}
