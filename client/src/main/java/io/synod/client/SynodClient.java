package io.synod.client;

import static io.synod.client.ClientReplies.checkKey;
import static io.synod.client.ClientReplies.expect;

import io.synod.coordination.ShardMap;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import io.synod.protocol.WatchCodec;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The Synod Java client: an asynchronous key-value API ({@link CompletableFuture}s) over the client
 * protocol, with a blocking facade ({@link #blocking()}).
 *
 * <pre>{@code
 * try (SynodClient client = SynodClient.builder().zookeeper("127.0.0.1:2181").cluster("prod").build()) {
 *     long version = client.put("user/42", "alice").join().slot();
 *     GetResult r = client.get("user/42").join();              // linearizable by default
 *     client.compareAndSetVersion("user/42", version, "bob".getBytes(UTF_8)).join();
 * }
 * }</pre>
 *
 * <ul>
 *   <li><b>Routing.</b> Each key belongs to the group owning its range in the shard map (read from
 *       ZooKeeper and watched, or asked from a server); the command goes to that group's leader,
 *       learned from replies and followed through the servers' leader hints.</li>
 *   <li><b>Retries.</b> Not-leader answers, busy servers, broken connections and leader changes are
 *       retried with exponential backoff until the call's timeout, with the same (client id, sequence),
 *       so a retried write is applied at most once. A write whose fate is unknown at the timeout fails
 *       with {@link OutcomeUnknownException}; a read, or a write that never reached a server, with
 *       {@link SynodTimeoutException}.</li>
 *   <li><b>Pipelining.</b> Up to {@link Builder#maxInFlight} requests are in flight at once over one
 *       connection per server; more wait in a bounded queue ({@link Builder#maxQueued}).</li>
 *   <li><b>Consistency.</b> Reads take a {@link Consistency}; every result carries the log slot it
 *       reflects.</li>
 * </ul>
 *
 * Thread-safe. Futures complete on the client's callback threads. {@link #withTimeout} gives a view
 * with another per-call timeout sharing the same connections; closing any view closes the client.
 */
public final class SynodClient implements AutoCloseable {
    private final ClientEngine engine;
    private final SessionCalls sessions;
    private final long timeoutNanos;
    private final Consistency defaultConsistency;

    private SynodClient(ClientEngine engine, long timeoutNanos, Consistency defaultConsistency) {
        this.engine = engine;
        this.sessions = new SessionCalls(this, engine, timeoutNanos);
        this.timeoutNanos = timeoutNanos;
        this.defaultConsistency = defaultConsistency;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * A client from one connect string: {@code zk://host:port[,host:port...]} (ZooKeeper; the one Synod
     * cluster in it, or {@code zk://hosts/cluster-name}) or {@code host:port[,host:port...]} (Synod
     * servers' client addresses).
     */
    public static SynodClient connect(String connect) {
        return builder().connect(connect).build();
    }

    /** A view of this client whose calls time out after {@code timeout} (same connections). */
    public SynodClient withTimeout(Duration timeout) {
        return new SynodClient(engine, positive(timeout), defaultConsistency);
    }

    /** A view of this client whose reads use {@code consistency} unless told otherwise. */
    public SynodClient withConsistency(Consistency consistency) {
        return new SynodClient(engine, timeoutNanos, Objects.requireNonNull(consistency));
    }

    /** The same client with blocking calls. */
    public BlockingSynodClient blocking() {
        return new BlockingSynodClient(this);
    }

    // ---- reads -------------------------------------------------------------------------------------

    public CompletableFuture<GetResult> get(String key) {
        return get(key, defaultConsistency);
    }

    public CompletableFuture<GetResult> get(String key, Consistency consistency) {
        return call(() -> new KvCommand.GetVersioned(checkKey(key)), consistency, reply -> {
            KvResult.Versioned v = expect(reply, KvResult.Versioned.class);
            return new GetResult(key, v.value(), v.version(), reply.slot(), reply.servedBy());
        });
    }

    /** The list of elements {@link #append}ed to {@code key}, in order (empty if none). */
    public CompletableFuture<ListResult> readList(String key) {
        return readList(key, defaultConsistency);
    }

    public CompletableFuture<ListResult> readList(String key, Consistency consistency) {
        return call(() -> new KvCommand.ReadList(checkKey(key)), consistency, reply ->
                new ListResult(key, expect(reply, KvResult.ListValue.class).elements(), reply.slot(), reply.servedBy()));
    }

    /**
     * Up to {@code limit} value keys in {@code [start, end)} ({@code end} empty: to the end of the key
     * space), in the byte order of their UTF-8 encodings, across every group the range covers (one
     * group after another, in key order). List keys are not returned.
     */
    public CompletableFuture<ScanResult> scan(String start, String end, int limit) {
        return scan(start, end, limit, defaultConsistency);
    }

    public CompletableFuture<ScanResult> scan(String start, String end, int limit, Consistency consistency) {
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(end, "end");
        if (limit < 1) {
            return CompletableFuture.failedFuture(new BadRequestException("scan limit must be >= 1, got " + limit));
        }
        List<KeyValue> out = new ArrayList<>();
        return ShardScan.scanFrom(engine, timeoutNanos, start, end, limit, consistency, out);
    }

    // ---- writes ------------------------------------------------------------------------------------

    public CompletableFuture<WriteResult> put(String key, byte[] value) {
        Objects.requireNonNull(value, "value");
        return call(() -> new KvCommand.Put(checkKey(key), value.clone()), Consistency.LOG, SynodClient::written);
    }

    public CompletableFuture<WriteResult> put(String key, String value) {
        return put(key, value.getBytes(StandardCharsets.UTF_8));
    }

    public CompletableFuture<WriteResult> delete(String key) {
        return call(() -> new KvCommand.Delete(checkKey(key)), Consistency.LOG, SynodClient::written);
    }

    /** Sets {@code value} if the key's current value equals {@code expected} (null: the key must be absent). */
    public CompletableFuture<CasResult> compareAndSet(String key, byte[] expected, byte[] value) {
        Objects.requireNonNull(value, "value");
        return call(() -> new KvCommand.CompareAndSet(checkKey(key), expected == null ? null : expected.clone(), value.clone()),
                Consistency.LOG, reply -> new CasResult(expect(reply, KvResult.Swapped.class).swapped(), reply.slot()));
    }

    public CompletableFuture<CasResult> compareAndSet(String key, String expected, String value) {
        return compareAndSet(key, expected == null ? null : expected.getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Sets {@code value} if the key's version (the slot of its last write, as {@link GetResult#version()}
     * and {@link WriteResult#slot()} report it) equals {@code expectedVersion}; 0 means "absent".
     */
    public CompletableFuture<CasResult> compareAndSetVersion(String key, long expectedVersion, byte[] value) {
        Objects.requireNonNull(value, "value");
        if (expectedVersion < 0) {
            return CompletableFuture.failedFuture(new BadRequestException("expected version must be >= 0"));
        }
        return call(() -> new KvCommand.CasVersion(checkKey(key), expectedVersion, value.clone()), Consistency.LOG,
                reply -> new CasResult(expect(reply, KvResult.Swapped.class).swapped(), reply.slot()));
    }

    /** Appends {@code element} to the list at {@code key} (the list-append model of the checker workloads). */
    public CompletableFuture<WriteResult> append(String key, long element) {
        return call(() -> new KvCommand.Append(checkKey(key), element), Consistency.LOG, SynodClient::written);
    }

    private static WriteResult written(ClientEngine.Reply reply) {
        expect(reply, KvResult.Done.class);
        return new WriteResult(reply.slot());
    }

    /** Admin: {@code group}'s leader changes its RS-Paxos F, X and threshold (0: keep); see {@link CodingChangeResult}. */
    public CompletableFuture<CodingChangeResult> changeCoding(int group, int failures, int dataShards, int thresholdBytes) {
        return engine.submitAdmin("coding change of group " + group + " to F=" + failures + ", X=" + dataShards, group,
                new ClientFrame.CodingChange(0, group, failures, dataShards, thresholdBytes), false, timeoutNanos)
                .thenApply(r -> new CodingChangeResult(r.group(), r.slot(), new String(r.result(), StandardCharsets.UTF_8)));
    }

    /**
     * Admin: a membership request to {@code group}'s leader: {@code op} is one of {@code ClientFrame.MEMBERSHIP_*}
     * (status, add learner, promote, remove, move, remove node) of replica id {@code replica} (a move: {@code
     * ClientFrame.moveNodes}; remove node: the node id); see {@link MembershipResult}. A change
     * the leader refuses fails with {@link BadRequestException} naming the rule.
     */
    public CompletableFuture<MembershipResult> membership(int group, int op, int replica) {
        return engine.submitAdmin("membership request " + op + " of group " + group, group,
                new ClientFrame.MembershipRequest(0, group, op, replica), op == ClientFrame.MEMBERSHIP_STATUS, timeoutNanos)
                .thenApply(r -> new MembershipResult(r.group(), r.slot(), new String(r.result(), StandardCharsets.UTF_8)));
    }

    // ---- sessions, ephemeral and sequential keys, checked deletes, watches ----------------------------
    //
    // Sessions, the keys created through create(...) and watches live in the session group: the group owning the
    // start of the key space (every key, with one group). Read such keys with getEntry/listKeys/watch, which go to
    // that group; get/scan route by key and see them only when the key's range belongs to the session group.

    /**
     * Grants a session with {@code ttl} (1 ms..1 day) and keeps it alive until it is closed or lost
     * ({@link SynodSession}). The session's id is the grant's slot.
     */
    public CompletableFuture<SynodSession> grantSession(Duration ttl) {
        return sessions.grant(ttl);
    }

    /** One keep-alive of session {@code id}: true if it lives (renewed at the reply's slot), false if it has ended. */
    CompletableFuture<Boolean> keepAlive(long id, long timeoutNanos) {
        return sessions.keepAlive(id, timeoutNanos);
    }

    /**
     * Ends session {@code id} now (like etcd's LeaseRevoke): deletes it and every key it owns. True if it was live.
     * Only the session's creator or an administrator may (otherwise {@link SynodPermissionException}; with
     * authorization off, anyone). A session's owner closes it with {@link SynodSession#close()}.
     */
    public CompletableFuture<Boolean> revokeSession(long id) {
        return revoke(id);
    }

    /** Ends session {@code id} now: deletes it and every key it owns. True if it was live. */
    CompletableFuture<Boolean> revoke(long id) {
        return sessions.revoke(id);
    }

    /**
     * Creates {@code key} with {@code value} if it is absent, owned by {@code session} (null: a persistent key),
     * {@code sequential}: with the parent's next sequence number appended (10 digits; the parent is the key up to its
     * last '/'). The created key's token is the create's slot (a fencing token). Fails with
     * {@link SessionExpiredException} if the session has ended.
     */
    public CompletableFuture<CreateResult> create(String key, byte[] value, SynodSession session, boolean sequential) {
        return sessions.create(key, value, session, sequential);
    }

    /** Creates an ephemeral key of {@code session} (deleted when the session ends). */
    public CompletableFuture<CreateResult> createEphemeral(SynodSession session, String key, byte[] value) {
        return create(key, value, Objects.requireNonNull(session, "session"), false);
    }

    /** Creates {@code prefix} + the parent's next sequence number, owned by {@code session} (null: persistent). */
    public CompletableFuture<CreateResult> createSequential(SynodSession session, String prefix, byte[] value) {
        return create(prefix, value, session, true);
    }

    /** Deletes {@code key} if it was created at slot {@code token} ({@code -1}: any). */
    public CompletableFuture<DeleteResult> deleteIf(String key, long token) {
        return sessions.deleteIf(key, token);
    }

    /** A key of the session group with its value, token and owner (linearizable). */
    public CompletableFuture<KeyEntry> getEntry(String key) {
        return sessions.getEntry(key);
    }

    /** Up to {@code limit} (1..4096) keys of the session group starting with {@code prefix}, in key order. */
    public CompletableFuture<KeyListing> listKeys(String prefix, int limit) {
        return sessions.listKeys(prefix, limit);
    }

    /**
     * Watches {@code key} of the session group from slot {@code fromSlot} on (e.g. a read's slot + 1): every change
     * after that position reaches {@code listener} in slot order, each once. Close the returned watch to stop.
     */
    public SynodWatch watch(String key, long fromSlot, WatchListener listener) {
        return startWatch(checkKey(key), false, fromSlot, listener);
    }

    /** As {@link #watch}, for every key of the session group starting with {@code prefix}. */
    public SynodWatch watchPrefix(String prefix, long fromSlot, WatchListener listener) {
        return startWatch(Objects.requireNonNull(prefix, "prefix"), true, fromSlot, listener);
    }

    private SynodWatch startWatch(String key, boolean prefix, long fromSlot, WatchListener listener) {
        Objects.requireNonNull(listener, "listener");
        try {
            new WatchCodec.Query(key, prefix, fromSlot, 0, 1, 0); // checks the arguments
        } catch (IllegalArgumentException e) {
            throw new BadRequestException(e.getMessage());
        }
        SynodWatch watch = new SynodWatch(this, key, prefix, fromSlot, 0, listener);
        watch.poll();
        return watch;
    }

    ClientEngine engine() {
        return engine;
    }

    // ---- plumbing ----------------------------------------------------------------------------------

    private <T> CompletableFuture<T> call(Supplier<KvCommand> command, Consistency consistency,
            Function<ClientEngine.Reply, T> decode) {
        Objects.requireNonNull(consistency, "consistency");
        KvCommand c;
        try {
            c = command.get();
        } catch (SynodException e) {
            return CompletableFuture.failedFuture(e);
        }
        return engine.submit(c, consistency, timeoutNanos).thenApply(decode);
    }

    private static long positive(Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("timeout must be > 0, got " + d);
        }
        return d.toNanos();
    }

    /** The shard map the client routes by (as last learned). */
    public ShardMap shardMap() {
        return engine.shardMap();
    }

    /** The servers the client knows: node id to client address. */
    public Map<Integer, InetSocketAddress> servers() {
        return engine.nodes();
    }

    int lanesCreated() {
        return engine.lanesCreated();
    }

    @Override
    public void close() {
        engine.close();
    }

    /** Builds a {@link SynodClient}. */
    public static final class Builder {
        private String zookeeper;
        private String cluster;
        private List<InetSocketAddress> servers;
        private Duration timeout = Duration.ofSeconds(10);
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration attemptTimeout = Duration.ofSeconds(5);
        private Consistency consistency = Consistency.LINEARIZABLE;
        private int maxInFlight = 1024;
        private int maxQueued = 100_000;
        private int maxFrameBytes = 16 * 1024 * 1024;
        private int maxCommandBytes = 1 << 20;
        private Duration backoffBase = Duration.ofMillis(10);
        private Duration backoffMax = Duration.ofMillis(500);
        private int readFrom = -1;
        private TlsFiles tls;

        private Builder() {}

        /**
         * Connects over TLS with this client's certificate, trusting only the cluster CA in {@code files}
         * (PEM; {@link TlsFiles#client} names a {@code synod cert} directory's files). Without it the
         * client speaks plain TCP, which only servers running with {@code insecure=true} accept.
         */
        public Builder tls(TlsFiles files) {
            this.tls = files;
            return this;
        }

        /** Find the cluster through ZooKeeper ({@code host:port[,host:port...]}). */
        public Builder zookeeper(String connectString) {
            this.zookeeper = connectString;
            return this;
        }

        /** The Synod cluster name in ZooKeeper (default: the only cluster there). */
        public Builder cluster(String name) {
            this.cluster = name;
            return this;
        }

        /** Find the cluster through these servers' client addresses. */
        public Builder servers(List<InetSocketAddress> addresses) {
            this.servers = List.copyOf(addresses);
            return this;
        }

        /** Parses {@code host:port[,host:port...]} as Synod servers' client addresses. */
        public Builder servers(String hostPorts) {
            return servers(StaticDiscovery.parseHostPorts(hostPorts));
        }

        /** {@code zk://hosts[/cluster]} for ZooKeeper, otherwise Synod servers (see {@link SynodClient#connect}). */
        public Builder connect(String connect) {
            Objects.requireNonNull(connect, "connect");
            if (connect.startsWith("zk://")) {
                String rest = connect.substring("zk://".length());
                int slash = rest.indexOf('/');
                if (slash >= 0) {
                    cluster(rest.substring(slash + 1));
                    rest = rest.substring(0, slash);
                }
                return zookeeper(rest);
            }
            return servers(connect);
        }

        /** Per-call timeout (default 10 s), including every retry. */
        public Builder timeout(Duration timeout) {
            positive(timeout);
            this.timeout = timeout;
            return this;
        }

        /**
         * How long one attempt of a request waits for its server before the request is retried at another
         * (default 5 s; {@link Duration#ZERO}: until the request's {@link #timeout}). A paused server or a
         * half-open link answers nothing and closes nothing; without this a request waited for it until its
         * deadline even after another server took over. A retried write is still applied at most once.
         * Watches are long polls and are exempt.
         */
        public Builder attemptTimeout(Duration timeout) {
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("attempt timeout must be >= 0, got " + timeout);
            }
            this.attemptTimeout = timeout;
            return this;
        }

        /** How long {@link #build} waits to reach the cluster (default 10 s). */
        public Builder connectTimeout(Duration timeout) {
            positive(timeout);
            this.connectTimeout = timeout;
            return this;
        }

        /** The consistency of reads that do not name one (default {@link Consistency#LINEARIZABLE}). */
        public Builder consistency(Consistency consistency) {
            this.consistency = Objects.requireNonNull(consistency);
            return this;
        }

        /**
         * The replica (node id) that LINEARIZABLE reads try first: typically the nearest one. In a
         * group with quorum leases ({@code lease=quorum|megastore}) a replica that holds the key's lease
         * answers the read locally and linearizably ({@link ServedBy#LEASE}); one that does not answers
         * NOT_LEADER with the leader's id, and the read goes to the leader (one extra hop). The client
         * remembers refused keys for a second, and skips the replica for a second after its connection
         * fails. Writes, LOG and STALE reads are routed as without it. Default: none (reads go to the
         * leader).
         */
        public Builder readFrom(int nodeId) {
            if (nodeId < 0 || nodeId > 62) {
                throw new IllegalArgumentException("readFrom node id must be 0..62, got " + nodeId);
            }
            this.readFrom = nodeId;
            return this;
        }

        /** Requests in flight at once (default 1024, the server's per-connection window). */
        public Builder maxInFlight(int n) {
            if (n < 1 || n > 65_536) {
                throw new IllegalArgumentException("max in flight must be 1..65536, got " + n);
            }
            this.maxInFlight = n;
            return this;
        }

        /** Requests waiting for a free in-flight slot before calls fail fast (default 100 000). */
        public Builder maxQueued(int n) {
            if (n < 0) {
                throw new IllegalArgumentException("max queued must be >= 0, got " + n);
            }
            this.maxQueued = n;
            return this;
        }

        /** Largest command the client sends (default 1 MiB, the servers' default limit). */
        public Builder maxCommandBytes(int n) {
            if (n < 16) {
                throw new IllegalArgumentException("max command bytes must be >= 16, got " + n);
            }
            this.maxCommandBytes = n;
            return this;
        }

        /** Retry backoff: first delay and cap (defaults 10 ms and 500 ms; each delay is jittered down by up to half). */
        public Builder backoff(Duration base, Duration max) {
            positive(base);
            positive(max);
            this.backoffBase = base;
            this.backoffMax = max;
            return this;
        }

        /**
         * Connects: waits until a server (or ZooKeeper) has told the client the servers and the shard map.
         *
         * @throws UnavailableException if the cluster cannot be reached within the connect timeout
         * @throws IllegalArgumentException if neither ZooKeeper nor servers were given, or both
         */
        public SynodClient build() {
            if ((zookeeper == null) == (servers == null)) {
                throw new IllegalArgumentException("give either zookeeper(...) or servers(...)");
            }
            Discovery discovery = zookeeper != null
                    ? new ZooKeeperDiscovery(zookeeper, cluster, connectTimeout)
                    : new StaticDiscovery(servers);
            ClientEngine engine = new ClientEngine(discovery, maxFrameBytes, maxCommandBytes, maxInFlight, maxQueued,
                    backoffBase.toNanos(), backoffMax.toNanos(), readFrom, tls == null ? null : tls.clientContext(),
                    attemptTimeout.toNanos());
            engine.start(connectTimeout.toMillis());
            return new SynodClient(engine, timeout.toNanos(), consistency);
        }
    }
}
