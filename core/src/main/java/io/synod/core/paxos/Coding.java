package io.synod.core.paxos;

import io.synod.core.util.Check;
import java.nio.ByteBuffer;

/**
 * The group's value coding, RS-Paxos (Mu, Chen, Wang, Li, Zheng; HPDC 2014, §4): N acceptors
 * tolerating F failures use read quorums {@code Q_R = N - F}; a value of at least
 * {@code thresholdBytes} is coded into X data shards out of N ({@code θ(X, N)}, X &le; N - 2F) and
 * is chosen once {@code Q_W(X) = N - Q_R + X} acceptors accepted it in one ballot, so any read
 * quorum meets any such write quorum in at least X acceptors, enough to rebuild it. Smaller values,
 * or X = 1, are plain Paxos with full copies ({@code Q_W(1) = F + 1}). {@link #OFF} is classic
 * Multi-Paxos with majorities and no coding.
 *
 * <p>The leader keeps whole values in a bounded cache ({@code cacheEntries}, {@code cacheBytes}).
 */
public final class Coding {
    /** No coding: majorities, full copies (the replica's behaviour without RS-Paxos). */
    public static final Coding OFF = new Coding(0, 0, 1, Integer.MAX_VALUE, 0, 0, ShardDecoder.CHECKED, false, false, false, false);

    private final int n;
    private final int f;
    private final int x;
    private final int thresholdBytes;
    private final int cacheEntries;
    private final long cacheBytes;
    private final ShardDecoder decoder;
    private final boolean reproposesUnrebuildable;
    private final boolean defersRebuild;
    private final boolean readsUnresolved;
    /** Negative control only: phase 1 waits for the read quorum of the applied coding alone. */
    private final boolean stalePhase1Quorum;

    private Coding(int n, int f, int x, int thresholdBytes, int cacheEntries, long cacheBytes, ShardDecoder decoder,
            boolean reproposesUnrebuildable, boolean defersRebuild, boolean readsUnresolved, boolean stalePhase1Quorum) {
        this.stalePhase1Quorum = stalePhase1Quorum;
        this.reproposesUnrebuildable = reproposesUnrebuildable;
        this.defersRebuild = defersRebuild;
        this.readsUnresolved = readsUnresolved;
        this.n = n;
        this.f = f;
        this.x = x;
        this.thresholdBytes = thresholdBytes;
        this.cacheEntries = cacheEntries;
        this.cacheBytes = cacheBytes;
        this.decoder = decoder;
    }

    /**
     * RS-Paxos for N acceptors tolerating F failures, coding values of at least {@code thresholdBytes}
     * into X data shards; the leader's value cache holds 1024 values or 256 MiB.
     *
     * @throws IllegalArgumentException naming the rule that (n, f, x, thresholdBytes) breaks
     */
    public static Coding rsPaxos(int n, int f, int x, int thresholdBytes) {
        Check.argument(n >= 3 && n <= ReplicaConfig.MAX_CLUSTER_SIZE, "coding needs 3..%d nodes, got %d",
                ReplicaConfig.MAX_CLUSTER_SIZE, n);
        Check.argument(f >= 1 && 2 * f < n, "coding needs 1 <= F and 2F < N, got N=%d F=%d", n, f);
        Check.argument(x >= 1 && x <= n - 2 * f, "coding needs 1 <= X <= N - 2F = %d, got X=%d", n - 2 * f, x);
        Check.argument(thresholdBytes >= 1, "coding threshold must be >= 1 byte, got %d", thresholdBytes);
        return new Coding(n, f, x, thresholdBytes, 1024, 256L << 20, ShardDecoder.CHECKED, false, false, false, false);
    }

    /** The same coding with a different decoder (the simulator's negative controls). */
    public Coding withDecoder(ShardDecoder newDecoder) {
        Check.argument(newDecoder != null, "decoder must not be null");
        return new Coding(n, f, x, thresholdBytes, cacheEntries, cacheBytes, newDecoder, reproposesUnrebuildable, defersRebuild,
                readsUnresolved, stalePhase1Quorum);
    }

    /** The same coding with a leader value cache of at most {@code entries} values and {@code bytes} bytes. */
    public Coding withCache(int entries, long bytes) {
        Check.argument(entries >= 1 && bytes >= 1, "cache bounds must be >= 1, got %d values, %d bytes", entries, bytes);
        return new Coding(n, f, x, thresholdBytes, entries, bytes, decoder, reproposesUnrebuildable, defersRebuild, readsUnresolved,
                stalePhase1Quorum);
    }

    /**
     * NEGATIVE CONTROL ONLY (the simulator's {@code phase1-few-shards} mutation): phase 1 re-proposes a
     * coded value it cannot rebuild (fewer than X shards among the promises) as a stub, breaking
     * "never decide a value that cannot be rebuilt" (RS-Paxos §4).
     */
    public Coding withUnrebuildableReproposals() {
        return new Coding(n, f, x, thresholdBytes, cacheEntries, cacheBytes, decoder, true, defersRebuild, readsUnresolved, stalePhase1Quorum);
    }

    boolean reproposesUnrebuildable() {
        return reproposesUnrebuildable;
    }

    /**
     * The same coding with <em>deferred follower rebuild</em> (docs/erasure.md): the leader attaches the
     * state machine's {@link AppliedState#deferralHeader} to each coded entry, and a replica that cannot
     * rebuild a committed coded value locally applies it from that header
     * ({@link StateMachine#applyDeferred}) instead of doing a recovery read; the value is rebuilt only
     * when something needs its bytes (a command or read of that key, a snapshot). Only state machines
     * that implement the deferral methods defer anything; with others this flag changes nothing.
     */
    public Coding withDeferredRebuild() {
        Check.state(enabled(), "coding is off: nothing to defer");
        return new Coding(n, f, x, thresholdBytes, cacheEntries, cacheBytes, decoder, reproposesUnrebuildable, true,
                readsUnresolved, stalePhase1Quorum);
    }

    /** Whether followers defer rebuilding coded values ({@link #withDeferredRebuild()}). */
    public boolean defersRebuild() {
        return defersRebuild;
    }

    /**
     * NEGATIVE CONTROL ONLY (the simulator's {@code deferred-stale-read} mutation): with deferred rebuild,
     * commands and local reads that read a deferred key are served without rebuilding it first, so
     * they see the bytes the key held before the deferred write.
     */
    public Coding withUnresolvedReads() {
        return new Coding(n, f, x, thresholdBytes, cacheEntries, cacheBytes, decoder, reproposesUnrebuildable, defersRebuild,
                true, stalePhase1Quorum);
    }

    boolean readsUnresolved() {
        return readsUnresolved;
    }

    /**
     * NEGATIVE CONTROL ONLY (the simulator's {@code coding-change-stale-quorum} mutation): phase 1 waits
     * for the read quorum {@code N - F} of the coding this replica has applied, ignoring the codings named
     * by change entries it holds beyond that, sees in promises or finds in a fetched snapshot. After a
     * change to a smaller F it can miss a value chosen with the new, smaller write quorum.
     */
    public Coding withStalePhase1Quorum() {
        return new Coding(n, f, x, thresholdBytes, cacheEntries, cacheBytes, decoder, reproposesUnrebuildable, defersRebuild,
                readsUnresolved, true);
    }

    boolean stalePhase1Quorum() {
        return stalePhase1Quorum;
    }

    // ---- coding changes through the log (docs/erasure.md "Coding changes") --------------------------

    /** Client id reserved for coding-change commands (never a client's: ids come from sessions below it). */
    public static final long CHANGE_CLIENT = Long.MAX_VALUE;
    private static final int CHANGE_MAGIC = 0x53434348; // "SCCH"
    private static final int CHANGE_BYTES = 20;

    /**
     * The same group (N, cache, decoder, deferral and negative-control flags) with F, X and the threshold
     * replaced; the rules of {@link #rsPaxos} apply.
     *
     * @throws IllegalStateException if coding is off
     * @throws IllegalArgumentException naming the rule the new values break
     */
    public Coding withChange(int newF, int newX, int newThresholdBytes) {
        Check.state(enabled(), "coding is off: there is no coding to change");
        Coding checked = rsPaxos(n, newF, newX, newThresholdBytes);
        return new Coding(n, checked.f, checked.x, checked.thresholdBytes, cacheEntries, cacheBytes, decoder,
                reproposesUnrebuildable, defersRebuild, readsUnresolved, stalePhase1Quorum);
    }

    /** Whether this coding has the same N, F, X and threshold as {@code other} (the parts a change sets). */
    public boolean sameParameters(Coding other) {
        return n == other.n && f == other.f && x == other.x && thresholdBytes == other.thresholdBytes;
    }

    /** The log command that changes the group's coding to this one's F, X and threshold (N is fixed). */
    Command changeCommand() {
        Check.state(enabled(), "coding is off: nothing to change to");
        byte[] payload = ByteBuffer.allocate(CHANGE_BYTES).putInt(CHANGE_MAGIC).putInt(n).putInt(f).putInt(x)
                .putInt(thresholdBytes).array();
        return new Command(CHANGE_CLIENT, 0, payload);
    }

    /** Whether {@code command} is a coding change ({@link #changeCommand()}). */
    public static boolean isChange(Command command) {
        return command.clientId() == CHANGE_CLIENT;
    }

    /**
     * This coding changed by {@code change}, a chosen coding-change command.
     *
     * @throws IllegalArgumentException if it is malformed or for another N
     */
    Coding after(Command change) {
        int[] p = changeParameters(change.payload());
        Check.argument(p[0] == n, "coding change is for N=%d, the group has N=%d", p[0], n);
        return withChange(p[1], p[2], p[3]);
    }

    /** F of the coding {@code change} sets (a chosen coding-change command). */
    static int failuresAfter(Command change) {
        return changeParameters(change.payload())[1];
    }

    private static int[] changeParameters(byte[] payload) {
        Check.argument(payload.length == CHANGE_BYTES, "coding change of %d bytes, expected %d", payload.length, CHANGE_BYTES);
        ByteBuffer in = ByteBuffer.wrap(payload);
        Check.argument(in.getInt() == CHANGE_MAGIC, "coding change without its magic number");
        return new int[] {in.getInt(), in.getInt(), in.getInt(), in.getInt()};
    }

    /** The snapshot form of this coding's changeable part (see {@link ClientSessions}). */
    byte[] encodeParameters() {
        return changeCommand().payload();
    }

    /** {@code initial} with the parameters {@link #encodeParameters()} wrote. */
    static Coding decodeParameters(Coding initial, byte[] bytes) {
        int[] p = changeParameters(bytes);
        Check.argument(p[0] == initial.n, "snapshot coding is for N=%d, the group has N=%d", p[0], initial.n);
        return initial.withChange(p[1], p[2], p[3]);
    }

    public boolean enabled() {
        return n > 0;
    }

    public int nodes() {
        return n;
    }

    public int failures() {
        return f;
    }

    public int dataShards() {
        return x;
    }

    public int thresholdBytes() {
        return thresholdBytes;
    }

    int cacheEntries() {
        return cacheEntries;
    }

    long cacheBytes() {
        return cacheBytes;
    }

    public ShardDecoder decoder() {
        return decoder;
    }

    /** Q_R = N - F (§4). */
    public int readQuorum() {
        return n - f;
    }

    /** Q_W(X) = N - Q_R + X (§4). */
    public int writeQuorum(int dataShards) {
        return n - readQuorum() + dataShards;
    }

    /** Whether {@code command} is coded: coding on, X &gt; 1, and a payload at or above the threshold. */
    boolean codes(Command command) {
        return enabled() && x > 1 && !command.isNoop() && !isChange(command) && command.payload().length >= thresholdBytes;
    }

    /**
     * X for new values while {@code voters} replicas vote (docs/membership.md, "Coding with membership changes"):
     * {@code min(X, voters - 2F)}, RS-Paxos's bound X &le; N - 2F (§4) with N the voters, so that F voters may
     * fail and a coded value still gathers {@code Q_W = F + X} voters; 1 means full copies. Shards stay one per
     * replica id of the group ({@link #nodes()} of them), so the voters never change how a value is coded,
     * only which X new values get.
     */
    public int dataShardsFor(int voters) {
        return Math.max(1, Math.min(x, voters - 2 * f));
    }

    /**
     * The RS-Paxos quorums: phase 1 needs Q_R promises; an entry commits with Q_W(X of its coding, 1 if plain).
     * The {@code clusterSize} the caller passes is the number of voters of the membership it counts in
     * ({@code Q_R = voters - F}); {@code Q_W = F + X} does not depend on it (docs/membership.md).
     * With coding changes (docs/erasure.md "Coding changes") the F in both comes from the caller: phase 1
     * uses the smallest F of every coding that may have chosen a slot it reads (the largest {@code Q_R}),
     * and a slot commits with the F of the coding in effect at that slot ({@code Q_W = F + X}, §4).
     */
    public QuorumPolicy quorum() {
        Check.state(enabled(), "coding is off: use QuorumPolicy.MAJORITY");
        return new QuorumPolicy() {
            @Override
            public int phase1Quorum(int clusterSize) {
                return clusterSize - f;
            }

            @Override
            public int phase1Quorum(int clusterSize, int fewestFailures) {
                return clusterSize - fewestFailures;
            }

            @Override
            public boolean isWriteQuorum(Entry entry, int acceptances, int clusterSize) {
                return acceptances >= writeQuorum(entry.coded() == null ? 1 : entry.coded().dataShards());
            }

            @Override
            public boolean isWriteQuorum(Entry entry, int slotFailures, int acceptances, int clusterSize) {
                return acceptances >= slotFailures + (entry.coded() == null ? 1 : entry.coded().dataShards());
            }

            @Override
            public String toString() {
                return "rs-paxos(Q_R=" + readQuorum() + ")";
            }
        };
    }

    @Override
    public String toString() {
        return enabled() ? "rs-paxos(N=" + n + ",F=" + f + ",X=" + x + ",threshold=" + thresholdBytes + "B)"
                + (defersRebuild ? " with deferred rebuild" : "") : "off";
    }
}
