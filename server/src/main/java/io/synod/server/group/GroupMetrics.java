package io.synod.server.group;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.synod.core.paxos.Role;
import io.synod.engine.DriverMetrics;
import java.util.concurrent.TimeUnit;

/**
 * The per-group meters: the Micrometer side of a group driver's {@link DriverMetrics} events (and of its
 * runner's persists). The group's worker writes the driver's fields and the log writer the persist meters; gauges
 * read them from the scrape thread (volatile, one writer each), so no lock is shared between the runtime and the
 * endpoint, except the log size gauge, which asks the node log once per scrape.
 */
public final class GroupMetrics implements DriverMetrics {
    private final Timer commitLatency;
    private final Timer fsyncLatency;
    private final DistributionSummary batchEntries;
    private final Counter leaderChanges;
    private final Counter appliedEntries;
    /** LINEARIZABLE reads answered OK: under a lease by the leader, under a quorum lease by a follower, or through the log. */
    private final Counter leaseReads;
    private final Counter followerLeaseReads;
    private final Counter logReads;
    /** Shard requests this replica sent (recovery reads of coded values: applying, or resolving a deferred key). */
    private final Counter recoveryRequests;
    /** STALE reads of a deferred key answered BUSY because its rebuild did not finish in time. */
    private final Counter parkedReadTimeouts;
    /** Quorum-lease reads a holder kept waiting (for its pending write's commit or its promises) instead of refusing. */
    private final Counter holderReadWaits;
    private volatile long applyLagSlots;
    private volatile long commitSlot;
    private volatile int role;
    /** Accepts the leader re-sent on its retransmission timer (the replica's count, copied after each pass). */
    private volatile long acceptRetransmits;
    /** Slots where a peer offered a different value than the one held as chosen or in the same ballot (the replica's count). */
    private volatile long divergences;
    /** Peer messages dropped because their ballot ran too far beyond the epochs seen in ZooKeeper (the replica's count). */
    private volatile long refusedBallots;
    private final MeterRegistry registry;
    private final String group;

    public GroupMetrics(MeterRegistry registry, int group) {
        String g = Integer.toString(group);
        this.registry = registry;
        this.group = g;
        commitLatency = Timer.builder("synod.commit.latency").description("client command received to answered")
                .tag("group", g).publishPercentileHistogram().register(registry);
        fsyncLatency = Timer.builder("synod.fsync.latency").description("one group-commit persist (write + fsync)")
                .tag("group", g).publishPercentileHistogram().register(registry);
        batchEntries = DistributionSummary.builder("synod.batch.entries").description("entries persisted per fsync")
                .tag("group", g).register(registry);
        leaderChanges = Counter.builder("synod.leader.changes").description("times this replica became leader")
                .tag("group", g).register(registry);
        appliedEntries = Counter.builder("synod.applied.entries").tag("group", g).register(registry);
        leaseReads = Counter.builder("synod.reads").description("reads answered OK, by the path that served them")
                .tag("group", g).tag("path", "lease").tag("role", "leader").register(registry);
        followerLeaseReads = Counter.builder("synod.reads").description("reads answered OK, by the path that served them")
                .tag("group", g).tag("path", "lease").tag("role", "follower").register(registry);
        logReads = Counter.builder("synod.reads").description("reads answered OK, by the path that served them")
                .tag("group", g).tag("path", "log").tag("role", "leader").register(registry);
        recoveryRequests = Counter.builder("synod.recovery.requests")
                .description("shard requests sent by this replica's recovery reads of coded values").tag("group", g)
                .register(registry);
        parkedReadTimeouts = Counter.builder("synod.stale.read.rebuild.timeouts")
                .description("STALE reads of a deferred value answered BUSY because its rebuild took too long")
                .tag("group", g).register(registry);
        holderReadWaits = Counter.builder("synod.lease.read.waits")
                .description("quorum-lease reads a holder kept waiting, up to two heartbeats, instead of refusing")
                .tag("group", g).register(registry);
        Gauge.builder("synod.apply.lag.slots", this, m -> m.applyLagSlots)
                .description("accepted slots not yet applied here").tag("group", g).register(registry);
        Gauge.builder("synod.commit.slot", this, m -> m.commitSlot).tag("group", g).register(registry);
        FunctionCounter.builder("synod.accept.retransmits", this, m -> m.acceptRetransmits)
                .description("Accepts re-sent by this replica as leader after no acknowledgement within the timeout")
                .tag("group", g).register(registry);
        FunctionCounter.builder("synod.divergence", this, m -> m.divergences)
                .description("slots where a peer offered a different value than this replica holds as chosen (forged or corrupt)")
                .tag("group", g).register(registry);
        FunctionCounter.builder("synod.refused.ballots", this, m -> m.refusedBallots)
                .description("peer messages dropped: ballot epoch beyond the newest ZooKeeper epoch seen plus the slack")
                .tag("group", g).register(registry);
        Gauge.builder("synod.role", this, m -> m.role).description("0 follower, 1 candidate, 2 leader")
                .tag("group", g).register(registry);
    }

    /** Exports the inbox counters of the group's runner: peer messages queued and dropped, client inputs refused BUSY. */
    /**
     * The group's membership as this replica applied it (docs/membership.md): its replica id, whether it votes, and
     * how many replicas vote and learn. A re-joined node's replica votes again once promoted.
     */
    public void exportMembership(GroupLoop loop, int replicaId) {
        Gauge.builder("synod.group.replica.id", () -> replicaId)
                .description("this node's replica id in the group (ids beyond the node ids: later incarnations)")
                .tag("group", group).register(registry);
        Gauge.builder("synod.group.voter", loop, l -> l.membership() != null && l.membership().isVoter(replicaId) ? 1 : 0)
                .description("1 while this replica votes in the membership it applied").tag("group", group).register(registry);
        Gauge.builder("synod.group.voters", loop, l -> l.membership() == null ? 0 : l.membership().voterCount())
                .description("voters of the membership this replica applied").tag("group", group).register(registry);
        Gauge.builder("synod.group.learners", loop, l -> l.membership() == null ? 0 : Long.bitCount(l.membership().learners()))
                .description("learners of the membership this replica applied").tag("group", group).register(registry);
    }

    public void exportInbox(GroupLoop loop) {
        // Read at the scrape: measuring it after every persist took the node log's lock once per group and Ready.
        Gauge.builder("synod.log.bytes", loop, GroupLoop::logSizeBytes).description("bytes of log segments on disk")
                .tag("group", group).register(registry);
        FunctionCounter.builder("synod.group.peer.queued", loop, GroupLoop::peerMessagesQueued)
                .description("peer messages accepted into the group's peer queue").tag("group", group).register(registry);
        for (SentKinds.Kind kind : SentKinds.Kind.values()) {
            FunctionCounter.builder("synod.group.peer.sent", loop, l -> l.sentKinds().count(kind))
                    .description("peer messages this group sent, by kind").tag("group", group).tag("kind", kind.label())
                    .register(registry);
        }
        FunctionCounter.builder("synod.group.client.busy", loop, GroupLoop::clientInputsBusy)
                .description("client inputs answered BUSY because the group's client queue was full").tag("group", group)
                .register(registry);
        FunctionCounter.builder("synod.group.inputs.dropped", loop, GroupLoop::droppedInputs)
                .description("peer messages dropped: the peer queue was full, or the replica refused them")
                .tag("group", group).register(registry);
    }

    /** Reads answered OK under a lease so far, by the leader or a follower (tests and benchmarks compare it with {@link #logReads()}). */
    public long leaseReads() {
        return (long) (leaseReads.count() + followerLeaseReads.count());
    }

    /** Reads answered OK under a quorum lease by this replica as a follower. */
    public long followerLeaseReads() {
        return (long) followerLeaseReads.count();
    }

    /** Shard requests sent by recovery reads so far (a follower that rebuilds every coded value sends some per write). */
    public long recoveryRequests() {
        return (long) recoveryRequests.count();
    }

    /** Reads answered OK through the log so far. */
    public long logReads() {
        return (long) logReads.count();
    }

    @Override
    public void commitLatency(long nanos) {
        commitLatency.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void read(ReadPath path) {
        (switch (path) {
            case LEASE_LEADER -> leaseReads;
            case LEASE_FOLLOWER -> followerLeaseReads;
            case LOG -> logReads;
        }).increment();
    }

    @Override
    public void holderReadWait() {
        holderReadWaits.increment();
    }

    @Override
    public void parkedReadTimeout() {
        parkedReadTimeouts.increment();
    }

    @Override
    public void leaderChange() {
        leaderChanges.increment();
    }

    @Override
    public void applied(int entries) {
        appliedEntries.increment(entries);
    }

    @Override
    public void recoveryRequest() {
        recoveryRequests.increment();
    }

    @Override
    public void afterPass(long applyLagSlots, long commitSlot, Role role, long acceptRetransmits, long divergences,
            long refusedBallots) {
        this.applyLagSlots = applyLagSlots;
        this.commitSlot = commitSlot;
        this.role = role.ordinal();
        this.acceptRetransmits = acceptRetransmits;
        this.divergences = divergences;
        this.refusedBallots = refusedBallots;
    }

    /** One group-commit persist: how long its write and fsync took, and how many entries it wrote. */
    @Override
    public void recordPersist(long nanos, int entries) {
        fsyncLatency.record(nanos, TimeUnit.NANOSECONDS);
        batchEntries.record(entries);
    }

}
