package io.synod.leases;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.ClockReading;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.LeaseHooks;
import io.synod.core.paxos.LeaseStamp;
import io.synod.core.paxos.LeaseView;
import io.synod.core.paxos.Role;
import java.util.HashSet;
import java.util.Set;

/**
 * Leader leases after LeaseGuard (Davis et al., SIGMOD 2026): the log is the lease. One instance per
 * replica incarnation; its state is volatile.
 *
 * <p>Rules, with their sections:
 * <ul>
 *   <li><b>Stamps (§3).</b> Every entry a leader creates carries its clock interval at creation
 *       ({@link LeaseStamp}; re-proposals keep it).</li>
 *   <li><b>Lease reads (§3.1).</b> A leader answers a read locally while the newest committed entry
 *       is one it created in its current ballot and is younger than Δ: {@code now.latest <
 *       stamp.earliest + Δ}.</li>
 *   <li><b>Deferred commit (§3.2).</b> A new leader accepts and replicates, but does not advance its
 *       commit point until every entry created in an earlier ballot is older than Δ
 *       ({@code now.earliest >= stamp.latest + Δ}); then the backlog commits at once. Entries it
 *       never saw one by one (inside a snapshot) count as created at the reading when it got them,
 *       and no earlier-ballot entry that was ever chosen can be younger than this leader's phase 1,
 *       so the wait never exceeds Δ from the moment it leads.</li>
 *   <li><b>Inherited lease reads (§3.3).</b> While it waits, the new leader answers reads of keys
 *       not written in its limbo region (the slots past its commit point that phase 1 recovered),
 *       while the entry at its commit point (known chosen, so every later leader waits for it too)
 *       is younger than Δ. Needs a bounded-uncertainty clock (§4).</li>
 *   <li><b>Idle no-op (§3).</b> A leader that serves reads and whose lease entry is older than Δ/2
 *       with nothing in flight appends a no-op to renew it.</li>
 *   <li><b>Timer-only mode (§4).</b> Without a bounded-uncertainty clock, stamps hold local monotonic
 *       readings that only their creator compares: it reads for Δ(1−ε) of local time after creating
 *       its newest committed entry; a new leader waits Δ(1+ε) of local time after it starts leading
 *       (every entry chosen in an earlier ballot was created before that); no inherited reads.</li>
 *   <li><b>End-lease entry on a planned hand-over (§3, our reading of LeaseGuard's step-down rule: a
 *       leader that steps down on purpose ends its lease through the log).</b> The leader appends
 *       {@link #END_LEASE} ({@link io.synod.core.paxos.Replica#handOver()}) and, from the moment it
 *       stamps it, serves no lease read, appends no idle no-op and takes no new client command (BUSY) in
 *       that ballot, so the end-lease entry stays its ballot's last. A new leader whose
 *       commit point (known chosen) is an end-lease entry of an earlier ballot, with no earlier-ballot
 *       entry past it, commits at once. Why: the entry being chosen means a leader committed it after its
 *       own deferred-commit wait, which outlasted every older lease; the creator stopped reading when it
 *       stamped it; any leader elected in between either saw it (then it served no inherited reads, see
 *       below) or it was chosen later by a leader whose wait covered that one's reads, and any entry a
 *       leader in between committed lies past it, where phase 1 finds it. A new leader that finds an
 *       end-lease entry in its limbo region serves no inherited reads (a later leader may skip the
 *       wait they rely on).</li>
 * </ul>
 * The safety argument in one line: an old leader reads only before {@code t(e) + Δ} for an entry
 * {@code e} it committed; any later leader finds {@code e} (or its stamp bound) in phase 1 or its own
 * log and commits nothing before {@code t(e) + Δ}.
 */
public final class LeaderLease implements LeaseHooks {
    /** Sequence number that marks the end-lease no-op ("ENDLEASE" in ASCII). */
    public static final long END_LEASE_SEQUENCE = 0x454E444C45415345L;
    /** The end-lease entry's command: a no-op to the state machine, recognised by its sequence number. */
    public static final Command END_LEASE = new Command(Command.NOOP_CLIENT, END_LEASE_SEQUENCE, new byte[0]);

    private final LeaderLeaseConfig config;
    private final KeyExtractor keys;
    private LeaseView view;

    /** Upper bound on the creation time (true time, latest) of every entry this incarnation applied or holds in a snapshot. */
    private long seenBoundNanos = Long.MIN_VALUE;
    /** Entries arrived that were never seen one by one (a snapshot, a restart): bound them at the next clock reading. */
    private boolean unseenPending = true;

    /** The ballot this replica leads in, or null. */
    private Ballot leading;
    /** BOUNDED: commit only once {@code now.earliest} reaches this; TIMER: once the monotonic clock does. */
    private long commitNotBeforeNanos;
    private long commitAtLeading;
    private LeaseStamp inheritedAnchor;
    private final Set<String> limboKeys = new HashSet<>();
    private boolean limboUnknownKeys;
    /** Monotonic reading of the last read this leader was asked to serve (the idle no-op keeps the lease for readers). */
    private long lastReadMonotonicNanos;
    private boolean readSeen;
    /** This leader stamped its end-lease entry in its current ballot: no more lease reads or idle no-ops. */
    private boolean leaseEnded;
    /** Times this incarnation led after a predecessor's end-lease entry and skipped the wait (for tests and docs). */
    private long handOverShortcuts;

    public LeaderLease(LeaderLeaseConfig config, KeyExtractor keys) {
        this.config = config;
        this.keys = keys;
    }

    @Override
    public void attach(LeaseView replicaView) {
        this.view = replicaView;
    }

    @Override
    public void onClock(ClockReading reading) {
        if (unseenPending) {
            unseenPending = false;
            seenBoundNanos = Math.max(seenBoundNanos, reading.latestNanos());
        }
    }

    @Override
    public void onApplied(Entry entry) {
        LeaseStamp stamp = entry.stamp();
        if (stamp != null) {
            seenBoundNanos = Math.max(seenBoundNanos, stamp.latestNanos());
        } else {
            unseen();
        }
    }

    @Override
    public void onSnapshotInstalled(long slot) {
        unseen();
    }

    /** Something was created at an unknown time before now: bound it by the current reading. */
    private void unseen() {
        ClockReading now = view == null ? null : view.clock();
        if (now == null) {
            unseenPending = true;
        } else {
            seenBoundNanos = Math.max(seenBoundNanos, now.latestNanos());
        }
    }

    @Override
    public LeaseStamp stamp(long slot, Command command) {
        ClockReading now = view.clock();
        Ballot own = view.ownBallot();
        if (now == null || own == null) {
            return null;
        }
        if (isEndLease(command)) {
            leaseEnded = true; // From now on this ballot reads nothing under the lease.
        }
        return config.clock() == LeaderLeaseConfig.Clock.BOUNDED
                ? new LeaseStamp(own, now.earliestNanos(), now.latestNanos())
                : new LeaseStamp(own, now.monotonicNanos(), now.monotonicNanos());
    }

    @Override
    public void onLeading(long commitSlot, long recoveredThroughSlot) {
        ClockReading now = view.clock();
        leading = view.ownBallot();
        commitAtLeading = commitSlot;
        limboKeys.clear();
        limboUnknownKeys = false;
        inheritedAnchor = null;
        leaseEnded = false;
        if (now == null) {
            commitNotBeforeNanos = Long.MAX_VALUE; // No clock, no lease: never commit on a guess.
            return;
        }
        if (endedAtCommitPoint(commitSlot)) {
            handOverShortcuts++;
            commitNotBeforeNanos = Long.MIN_VALUE; // The previous lease ended through the log: no wait.
            return;
        }
        if (!config.waitsForNonVoters() && predecessorLeft(commitSlot)) {
            commitNotBeforeNanos = Long.MIN_VALUE; // The LL1 negative control: a removed leader's lease "does not count".
            return;
        }
        if (config.clock() == LeaderLeaseConfig.Clock.TIMER) {
            commitNotBeforeNanos = now.monotonicNanos() + config.deferLocalNanos();
            return;
        }
        long bound = seenBoundNanos;
        for (long slot = view.appliedSlot() + 1; slot <= view.lastSlot(); slot++) {
            Entry entry = view.entry(slot);
            if (entry == null || entry.stamp() == null) {
                bound = Math.max(bound, now.latestNanos());
            } else if (!entry.stamp().creator().equals(leading)) {
                bound = Math.max(bound, entry.stamp().latestNanos());
            }
        }
        // Every entry chosen in an earlier ballot was created before this leader's phase 1 finished.
        bound = Math.min(bound, now.latestNanos());
        commitNotBeforeNanos = bound == Long.MIN_VALUE ? Long.MIN_VALUE : bound + config.leaseNanos();
        Entry committed = commitSlot == 0 ? null : view.entry(commitSlot);
        inheritedAnchor = committed == null ? null : committed.stamp();
        for (long slot = commitSlot + 1; slot <= recoveredThroughSlot; slot++) {
            Entry entry = view.entry(slot);
            if (entry == null) {
                limboUnknownKeys = true;
                continue;
            }
            if (isEndLease(entry.command())) {
                inheritedAnchor = null; // A later leader may skip the wait that inherited reads rely on.
            }
            if (entry.command().isNoop()) {
                continue;
            }
            String key = keys.keyOf(entry.command().payload());
            if (key == null) {
                limboUnknownKeys = true;
            } else {
                limboKeys.add(key);
            }
        }
    }

    /**
     * The hand-over rule: the entry at the commit point (known chosen) is an end-lease entry of an earlier
     * ballot and no entry past it (phase 1 recovered them all) comes from an earlier ballot.
     */
    private boolean endedAtCommitPoint(long commitSlot) {
        Entry committed = commitSlot == 0 ? null : view.entry(commitSlot);
        if (committed == null || !isEndLease(committed.command()) || committed.stamp() == null
                || committed.stamp().creator().equals(leading)) {
            return false;
        }
        for (long slot = commitSlot + 1; slot <= view.lastSlot(); slot++) {
            Entry entry = view.entry(slot);
            if (entry == null || entry.stamp() == null || !entry.stamp().creator().equals(leading)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The LL1 negative control's test: the creator of the newest entry of an earlier ballot in this leader's log (at
     * or past its commit point) is no voter of the membership this replica applied.
     */
    private boolean predecessorLeft(long commitSlot) {
        for (long slot = view.lastSlot(); slot >= Math.max(1, commitSlot); slot--) {
            Entry entry = view.entry(slot);
            if (entry != null && entry.stamp() != null && !entry.stamp().creator().equals(leading)) {
                int creator = entry.stamp().creator().nodeId();
                return creator >= 0 && creator < 64 && (view.appliedVoters() & (1L << creator)) == 0;
            }
        }
        return false;
    }

    static boolean isEndLease(Command command) {
        return command.isNoop() && command.sequence() == END_LEASE_SEQUENCE;
    }

    /** How many times this incarnation led right after a predecessor's end-lease entry and skipped the deferred-commit wait. */
    public long handOverShortcuts() {
        return handOverShortcuts;
    }

    @Override
    public Command endLeaseCommand() {
        return leading != null && leading.equals(view.ownBallot()) && !leaseEnded ? END_LEASE : null;
    }

    @Override
    public boolean mayAcceptProposals(long nowNanos) {
        if (leaseEnded) {
            return false; // Handing over: the end-lease entry stays the last entry of this ballot.
        }
        if (!config.logLease() || leading == null) {
            return true;
        }
        ClockReading now = view.clock();
        return now != null && !deferring(now);
    }

    @Override
    public void onStepDown() {
        leading = null;
        inheritedAnchor = null;
        limboKeys.clear();
    }

    private boolean deferring(ClockReading now) {
        if (!config.deferredCommit()) {
            return false;
        }
        long clock = config.clock() == LeaderLeaseConfig.Clock.BOUNDED ? now.earliestNanos() : now.monotonicNanos();
        return clock < commitNotBeforeNanos;
    }

    @Override
    public boolean mayCommit(Entry entry, long nowNanos) {
        ClockReading now = view.clock();
        if (leading == null || !leading.equals(view.ownBallot())) {
            return !config.deferredCommit(); // Not leading as far as this policy knows: no commit on a guess.
        }
        return now != null && !deferring(now);
    }

    @Override
    public boolean mayServeLocalRead(Role role, Command read, long nowNanos) {
        ClockReading now = view.clock();
        if (role != Role.LEADER || now == null || leading == null || !leading.equals(view.ownBallot())) {
            return false;
        }
        lastReadMonotonicNanos = now.monotonicNanos();
        readSeen = true;
        if (config.readsWithoutLease()) {
            return true; // The inconsistent baseline: no lease at all.
        }
        if (leaseEnded && config.endLeaseStopsReads()) {
            return false; // Handed over: the end-lease entry ended this ballot's lease.
        }
        if (ownLeaseValid(now)) {
            return true;
        }
        return config.inheritedReads() && inheritedReadAllowed(read, now);
    }

    /** §3.1 (§4 for timers): the newest committed entry is this leader's and younger than Δ. */
    private boolean ownLeaseValid(ClockReading now) {
        LeaseStamp stamp = newestCommittedOwnStamp();
        if (stamp == null) {
            return false;
        }
        if (config.clock() == LeaderLeaseConfig.Clock.BOUNDED) {
            return now.latestNanos() < stamp.earliestNanos() + config.leaseNanos();
        }
        return now.monotonicNanos() - stamp.earliestNanos() < config.readWindowLocalNanos();
    }

    private LeaseStamp newestCommittedOwnStamp() {
        Entry committed = view.entry(view.commitSlot());
        if (committed == null || committed.stamp() == null || !committed.stamp().creator().equals(leading)) {
            return null;
        }
        return committed.stamp();
    }

    /** §3.3: a key outside the limbo region, while the entry at the commit point we led from is younger than Δ. */
    private boolean inheritedReadAllowed(Command read, ClockReading now) {
        if (inheritedAnchor == null || now.latestNanos() >= inheritedAnchor.earliestNanos() + config.leaseNanos()) {
            return false;
        }
        if (!config.limboCheck()) {
            return true; // The negative control: the limbo region is ignored.
        }
        String key = keys.keyOf(read.payload());
        return key != null && !limboUnknownKeys && !limboKeys.contains(key);
    }

    /** Leader leases need no acceptors beyond the write quorum. */
    @Override
    public long requiredAcceptors(Entry entry) {
        return 0L;
    }

    @Override
    public boolean wantsNoop() {
        ClockReading now = view.clock();
        if (leading == null || now == null || !readSeen || leaseEnded || deferring(now)
                || now.monotonicNanos() - lastReadMonotonicNanos > config.leaseNanos()) {
            return false;
        }
        LeaseStamp stamp = newestCommittedOwnStamp();
        if (stamp == null) {
            return true;
        }
        long age = config.clock() == LeaderLeaseConfig.Clock.BOUNDED ? now.latestNanos() - stamp.earliestNanos()
                : now.monotonicNanos() - stamp.earliestNanos();
        return age > config.leaseNanos() / 2;
    }

    @Override
    public String toString() {
        return "leader-lease(" + config + ")";
    }
}
