package io.synod.client;

import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.synod.coordination.ShardMap;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.KvCommand;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The machinery behind {@link SynodClient}: one Netty event loop thread owns every piece of mutable
 * state (connections, the shard map, the leader of each group, the requests in flight), so nothing
 * here needs a lock; callers hand work over with {@link EventLoop#execute}. User futures complete on a
 * small callback pool, never on the event loop, so a callback that blocks cannot stall the client.
 *
 * <p><b>At most once with many requests in flight.</b> A replica remembers, per client id, only the
 * last applied sequence and answers one outstanding command per client id (docs/client.md). So the client keeps a pool of <em>lanes</em>, each with its own random client id and
 * sequence counter, and runs at most one command per lane: pipelining is many lanes in flight on one
 * connection. A retry reuses its lane's (client id, sequence), so the replicas apply it at most once.
 * A lane whose command timed out with its fate unknown takes a fresh client id, so a late answer to
 * the abandoned command can never be mistaken for the next one.
 */
final class ClientEngine implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClientEngine.class);

    /** A final answer from a replica, and which path served it. */
    record Reply(int group, long slot, byte[] result, int node, ServedBy servedBy) {}

    private final ClientChannels channels;
    private final EventLoop loop;
    private final ExecutorService callbacks;
    private final Discovery discovery;
    private final int maxCommandBytes;
    private final int maxQueued;
    private final RetryBackoff backoff;

    // ---- state owned by the event loop --------------------------------------------------------
    private ShardMap shardMap;
    private final Map<Integer, InetSocketAddress> nodes = new HashMap<>();
    private final Map<Integer, Integer> leaders = new HashMap<>();
    private final ForwardRoutes forwardRoutes = new ForwardRoutes();
    private final PlacementRoutes placed = new PlacementRoutes();
    private final PlacementProbe probe;
    private final ServerAnswers answers;
    private final Map<InetSocketAddress, ServerConnection> connections = new HashMap<>();
    private final Map<Long, PendingOp> inFlight = new HashMap<>();
    private final Map<Long, Consumer<ClientFrame>> control = new HashMap<>();
    private final ArrayDeque<PendingOp> waiting = new ArrayDeque<>();
    private final LanePool lanes;
    private long nextRequestId = 1;
    /** Readiness waits for the first placement answer, 3 s at most (a server may hang): 0 not yet asked, 1, 2 over. */
    private int placementWait;
    private final TargetPicker targets;
    private final long attemptTimeoutNanos;
    private volatile boolean closed;
    private final CompletableFuture<Void> ready = new CompletableFuture<>();

    /** {@code preferredReader}: the node LINEARIZABLE reads try first ({@link SynodClient.Builder#readFrom}), or -1. */
    /** {@code tls}: the client side of TLS for every connection, or null for servers running with insecure=true. */
    /** {@code attemptTimeoutNanos}: how long one attempt waits for its server ({@link #attemptExpired}); 0: no limit. */
    ClientEngine(Discovery discovery, int maxFrameBytes, int maxCommandBytes, int maxInFlight, int maxQueued,
            long backoffBaseNanos, long backoffMaxNanos, int preferredReader, SslContext tls, long attemptTimeoutNanos) {
        this.attemptTimeoutNanos = attemptTimeoutNanos;
        this.targets = new TargetPicker(preferredReader);
        this.discovery = discovery;
        this.maxCommandBytes = maxCommandBytes;
        this.lanes = new LanePool(maxInFlight);
        this.maxQueued = maxQueued;
        this.backoff = new RetryBackoff(backoffBaseNanos, backoffMaxNanos);
        this.channels = new ClientChannels(maxFrameBytes, tls, this);
        this.loop = channels.loop();
        this.callbacks = Executors.newFixedThreadPool(2, new DefaultThreadFactory("synod-client-callback", true));
        this.probe = new PlacementProbe(channels, placed, this::checkReady);
        this.answers = new ServerAnswers(this, nodes, leaders, targets, forwardRoutes, placed, probe);
    }

    /** Starts discovery and waits until the client knows at least one server and the shard map. */
    void start(long timeoutMillis) {
        discovery.start(this);
        discovery.awaitReady(ready, timeoutMillis, this::close);
    }

    int maxCommandBytes() {
        return maxCommandBytes;
    }

    // ---- what discovery tells us (any thread) ---------------------------------------------------

    void updateShardMap(ShardMap map) {
        loop.execute(() -> {
            if (shardMap == null || map.generation() >= shardMap.generation()) {
                if (shardMap != null && map.generation() > shardMap.generation()) {
                    leaders.clear();
                }
                shardMap = map;
            }
            checkReady();
        });
    }

    void updateNodes(Map<Integer, InetSocketAddress> members) {
        loop.execute(() -> {
            nodes.clear();
            nodes.putAll(members);
            leaders.values().removeIf(n -> !nodes.containsKey(n));
            checkReady();
        });
    }

    void addNode(int nodeId, InetSocketAddress address) {
        loop.execute(() -> {
            nodes.put(nodeId, address);
            checkReady();
        });
    }

    void noteLeader(int group, int node) {
        loop.execute(() -> {
            if (node >= 0) {
                leaders.put(group, node);
            }
        });
    }

    void failStart(Throwable cause) {
        ready.completeExceptionally(cause);
    }

    private void checkReady() {
        if (!nodes.isEmpty() && !placed.settled()) {
            probe.ask(-1, nodes, System.nanoTime()); // learn where groups are before the first request
            if (placementWait == 0) {
                placementWait = 1;
                loop.schedule(() -> {
                    placementWait = 2;
                    checkReady();
                }, 3, TimeUnit.SECONDS);
            }
        }
        if (shardMap != null && !nodes.isEmpty() && !ready.isDone() && (placed.settled() || placementWait == 2)) {
            ready.complete(null);
            dispatchWaiting();
        }
    }

    /**
     * Sends a control frame (status or shard map query) to {@code address}; {@code onAnswer} runs on
     * the event loop with the answer, or with null if the connection fails first.
     */
    void query(InetSocketAddress address, LongFunction<ClientFrame> frame, Consumer<ClientFrame> onAnswer) {
        loop.execute(() -> {
            if (closed) {
                return;
            }
            long id = nextRequestId++;
            control.put(id, onAnswer);
            connection(address).send(id, frame.apply(id));
        });
    }

    // ---- requests (any thread) --------------------------------------------------------------------

    CompletableFuture<Reply> submit(KvCommand command, Consistency consistency, long timeoutNanos) {
        byte[] payload;
        try {
            payload = command.encode();
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new InvalidKeyException(e.getMessage()));
        }
        String description = command.getClass().getSimpleName().toLowerCase(Locale.ROOT) + " of key '" + command.key() + "'";
        return submit(description, payload, command.key().getBytes(StandardCharsets.UTF_8), command.isReadOnly(),
                false, consistency, timeoutNanos, null);
    }

    /**
     * A session command ({@code io.synod.protocol.SessionCommand} bytes): sequenced through the session group's log
     * (the group owning the empty key, where sessions and the keys they create live), read-only ones answered there.
     */
    CompletableFuture<Reply> submitSession(String description, byte[] payload, boolean readOnly, long timeoutNanos) {
        return submit(description, payload, new byte[0], readOnly, false, Consistency.LINEARIZABLE, timeoutNanos, null);
    }

    /** A watch poll ({@code WatchCodec.Query} bytes) to the session group's leader. */
    CompletableFuture<Reply> submitWatch(String description, byte[] query, long timeoutNanos) {
        return submit(description, query, new byte[0], true, true, Consistency.LINEARIZABLE, timeoutNanos, null);
    }

    /**
     * An admin request ({@link ClientFrame.CodingChange}, {@link ClientFrame.MembershipRequest}) sent to {@code group}'s
     * leader, followed through NOT_LEADER hints and retried like a write; REJECTED fails with {@link BadRequestException}.
     */
    CompletableFuture<Reply> submitAdmin(String description, int group, ClientFrame admin, boolean readOnly,
            long timeoutNanos) {
        if (group < 0) {
            return CompletableFuture.failedFuture(new BadRequestException("group must be >= 0, got " + group));
        }
        return submit(description, new byte[0], new byte[0], readOnly, false, Consistency.LOG, timeoutNanos, admin);
    }

    private CompletableFuture<Reply> submit(String description, byte[] payload, byte[] routingKey, boolean readOnly,
            boolean watch, Consistency consistency, long timeoutNanos, ClientFrame admin) {
        if (payload.length > maxCommandBytes) {
            return CompletableFuture.failedFuture(new ValueTooLargeException("command of " + payload.length
                    + " bytes exceeds the limit of " + maxCommandBytes + " bytes"));
        }
        if (closed) {
            return CompletableFuture.failedFuture(new UnavailableException("the client is closed"));
        }
        PendingOp op = new PendingOp(description, payload, routingKey, readOnly, watch, consistency,
                System.nanoTime() + timeoutNanos);
        op.admin = admin;
        CompletableFuture<Reply> userFuture = op.userFuture(callbacks);
        loop.execute(() -> admit(op, timeoutNanos));
        return userFuture;
    }

    private void admit(PendingOp op, long timeoutNanos) {
        if (closed) {
            op.future.completeExceptionally(new UnavailableException("the client is closed"));
            return;
        }
        op.timeout = loop.schedule(() -> expire(op), timeoutNanos, TimeUnit.NANOSECONDS);
        Lane lane = ready.isDone() ? lanes.acquire() : null;
        if (lane == null) {
            if (waiting.size() >= maxQueued) {
                finish(op, null, new SynodException("too many requests waiting (" + maxQueued
                        + "); the client has " + lanes.max() + " in flight"));
                return;
            }
            waiting.add(op);
            return;
        }
        start(op, lane);
    }

    private void start(PendingOp op, Lane lane) {
        op.lane = lane;
        op.sequence = ++lane.sequence;
        send(op);
    }

    private void dispatchWaiting() {
        while (!waiting.isEmpty() && ready.isDone()) {
            Lane lane = lanes.acquire();
            if (lane == null) {
                return;
            }
            PendingOp op = waiting.poll();
            if (op.future.isDone()) {
                lanes.release(lane);
                continue;
            }
            start(op, lane);
        }
    }

    /** Sends {@code op} to the server its group's routing picks now (or retries later if none is known). */
    void send(PendingOp op) {
        if (op.future.isDone()) {
            return;
        }
        if (closed) {
            finish(op, null, new UnavailableException("the client is closed"));
            return;
        }
        op.group = op.admin != null ? op.adminGroup() : shardMap.groupFor(op.routingKey);
        int target = targets.pick(op, nodes, leaders, placed);
        if (target < 0) {
            op.lastProblem = "no live server is known";
            retryLater(op);
            return;
        }
        op.target = target;
        probe.ask(target, nodes, System.nanoTime()); // only if the pick found the placement worth asking for again
        op.forward = forwardRoutes.forward(op, target, System.nanoTime());
        op.routed = op.admin != null ? placed.adminRoutedTo(target) : placed.routedTo(target);
        op.requestId = nextRequestId++;
        op.via = connection(nodes.get(target));
        inFlight.put(op.requestId, op);
        op.via.send(op.requestId, op.toFrame());
        if (attemptTimeoutNanos > 0 && !op.watch) { // a watch is a long poll: its server answers when keys change
            long requestId = op.requestId;
            loop.schedule(() -> attemptExpired(op, requestId), attemptTimeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * A server that neither answers nor drops the connection (a paused process, a half-open link) would
     * hold a request until its deadline, long after another server took over its groups. Past the attempt
     * timeout the request is retried like one whose connection broke: a write keeps its lane's client id
     * and sequence, so it is applied at most once, and the silent server is no longer taken for the
     * group's leader. A late answer to the abandoned attempt is ignored.
     */
    private void attemptExpired(PendingOp op, long requestId) {
        if (op.future.isDone() || inFlight.get(requestId) != op) {
            return;
        }
        inFlight.remove(requestId);
        op.via.requests.remove(requestId);
        answers.silent(op, attemptTimeoutNanos);
    }

    private ServerConnection connection(InetSocketAddress address) {
        ServerConnection c = connections.get(address);
        if (c != null) {
            return c;
        }
        ServerConnection conn = new ServerConnection(address);
        connections.put(address, conn);
        channels.connect(conn, this::lost);
        return conn;
    }

    /** A connection failed: everything sent through it is retried (a write there may have been applied). */
    void lost(ServerConnection conn, String why) {
        if (conn.lost) {
            return;
        }
        conn.lost = true;

        conn.queued.clear();
        if (connections.get(conn.address) == conn) {
            connections.remove(conn.address);
        }
        leaders.values().removeIf(n -> conn.address.equals(nodes.get(n)));
        int preferred = targets.preferredReader();
        boolean preferredConn = preferred >= 0 && conn.address.equals(nodes.get(preferred));
        if (preferredConn) {
            targets.preferredLost();
        }
        for (Long id : conn.requests) {
            PendingOp op = inFlight.remove(id);
            if (op != null) {
                op.preferredRefused |= preferredConn && op.target == preferred;
                op.maybeApplied |= !op.readOnly(); // It may have reached the server before the connection broke.
                op.lastProblem = op.admin == null ? why
                        : why + " (a server older than this admin frame, coding or membership change, closes the connection on it)";
                retryLater(op);
            }
            Consumer<ClientFrame> c = control.remove(id);
            if (c != null) {
                c.accept(null);
            }
        }
        conn.requests.clear();
        if (conn.channel != null) {
            conn.channel.close();
        }
    }

    /** A decoded frame from {@code conn} (called by {@link InboundHandler} on the event loop). */
    void onFrame(ServerConnection conn, ClientFrame frame) {
        if (conn.probeNode >= 0) {
            probe.answered(conn, frame);
            return;
        }
        conn.requests.remove(frame.requestId());
        Consumer<ClientFrame> c = control.remove(frame.requestId());
        if (c != null) {
            c.accept(frame);
            return;
        }
        if (frame instanceof ClientFrame.Response r) {
            onResponse(conn, r);
        }
    }

    private void onResponse(ServerConnection conn, ClientFrame.Response r) {
        PendingOp op = inFlight.remove(r.requestId());
        if (op == null || op.future.isDone()) {
            return; // Late answer to a request that timed out or was already retried elsewhere.
        }
        if (r.group() >= 0 && r.group() != op.group) {
            discovery.refreshShardMap(this); // The server routes the key elsewhere: our map is old.
        }
        answers.onResponse(op, r);
    }

    /** Sends {@code op} again after its backoff, unless its deadline comes first. */
    void retryLater(PendingOp op) {
        if (op.future.isDone()) {
            return;
        }
        op.attempts++;
        op.redirects = 0;
        long delay = backoff.delayNanos(op.attempts);
        if (System.nanoTime() + delay - op.deadlineNanos >= 0) {
            return; // The timeout fires first and says what happened.
        }
        loop.schedule(() -> send(op), delay, TimeUnit.NANOSECONDS);
    }

    private void expire(PendingOp op) {
        if (op.future.isDone()) {
            return;
        }
        boolean unanswered = inFlight.remove(op.requestId) != null;
        op.maybeApplied |= unanswered && !op.readOnly();
        waiting.remove(op);
        finish(op, null, op.expired());
    }

    /** Completes {@code op} with {@code reply} or {@code error}, frees its lane and starts a waiting request. */
    void finish(PendingOp op, Reply reply, SynodException error) {
        if (op.timeout != null) {
            op.timeout.cancel(false);
        }
        if (op.requestId != 0) {
            inFlight.remove(op.requestId);
        }
        if (op.lane != null) {
            lanes.release(op.lane);
            op.lane = null;
        }
        if (error != null) {
            op.future.completeExceptionally(error);
        } else {
            op.future.complete(reply);
        }
        dispatchWaiting();
    }

    /** Runs {@code task} on the event loop after {@code delayNanos} (session keep-alives, watch retries); null once closed. */
    Future<?> schedule(Runnable task, long delayNanos) {
        if (closed) {
            return null;
        }
        try {
            return loop.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            return null;
        }
    }

    boolean isClosed() {
        return closed;
    }

    // ---- observation (tests) ----------------------------------------------------------------------

    /** Runs {@code task} on the event loop and waits for it (tests and status). */
    <T> T onLoop(Supplier<T> task) {
        CompletableFuture<T> f = new CompletableFuture<>();
        loop.execute(() -> f.complete(task.get()));
        return f.join();
    }

    ShardMap shardMap() {
        return onLoop(() -> shardMap);
    }

    Map<Integer, InetSocketAddress> nodes() {
        return onLoop(() -> Map.copyOf(nodes));
    }

    int lanesCreated() {
        return onLoop(lanes::created);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            loop.execute(() -> {
                UnavailableException e = new UnavailableException("the client is closed");
                for (PendingOp op : new ArrayList<>(inFlight.values())) {
                    finish(op, null, e);
                }
                for (PendingOp op : new ArrayList<>(waiting)) {
                    finish(op, null, e);
                }
                waiting.clear();
                for (ServerConnection c : new ArrayList<>(connections.values())) {
                    c.lost = true;
                    c.channel.close();
                }
                connections.clear();
                done.complete(null);
            });
            done.get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.debug("closing the client: {}", e.toString());
        }
        try {
            discovery.close();
        } finally {
            channels.shutdown();
            callbacks.shutdown();
        }
    }
}
