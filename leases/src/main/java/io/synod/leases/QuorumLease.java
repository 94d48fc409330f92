package io.synod.leases;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.ClockReading;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.GroupMembership;
import io.synod.core.paxos.LeaseHooks;
import io.synod.core.paxos.LeaseView;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.Role;
import java.util.Arrays;
import java.util.TreeMap;

/**
 * Quorum read leases after Moraru, Andersen and Kaminsky, "Paxos Quorum Leases: Fast Reads Without
 * Sacrificing Writes" (SoCC 2014), and, with {@link KeyAssignment#ALL}, Megastore's leases (every
 * replica holds every key). One instance per replica incarnation; its state is volatile. Every
 * replica is a <em>grantor</em> to every other and a <em>holder</em> of the keys the
 * {@link KeyAssignment} gives it.
 *
 * <p>Rules, with their sections:
 * <ul>
 *   <li><b>Guard and promise (§3.5).</b> A holder H sends every other replica G a guard and notes its
 *       local send time r. G, on receipt, is bound to H for t_lease(1+ε) of its own time and answers
 *       with a promise that reports the highest slot it has accepted. H counts the promise only if it
 *       arrives within t_guard of r, and trusts it until r + t_lease(1−ε) of its own time. With clock
 *       rates within 1 ± ε, H stops trusting it before G stops being bound (G received the guard after
 *       r). Clocks need not agree: each side only measures its own intervals.</li>
 *   <li><b>Renewal (§3.8).</b> H sends a fresh guard every {@code renewNanos}, at least a round trip
 *       before t_lease(1−ε) runs out, so the leases of a healthy holder never lapse.</li>
 *   <li><b>Holder reads (§3).</b> H answers a read of k locally while it holds k, holds enough unexpired
 *       promises that H and its grantors form a phase 1 quorum, which meets every write quorum (⌊N/2⌋
 *       promises with majorities; N - F - 1 with RS-Paxos, where F + 1 acceptances choose a plain value),
 *       has applied at least up to the slots that many of those promises report (or holds entries through
 *       them in a ballot at least the promises', see {@link #holdsCurrentEntriesThrough}), and holds no
 *       accepted entry past its applied slot that writes k (or a key it cannot name).</li>
 *   <li><b>Writes wait for holders (§3).</b> An acceptor tells the leader, with every Accept it
 *       handles (and again while the slot is uncommitted), which holders it is bound to
 *       ({@link Message.Lease.Kind#BOUND}). The leader commits a write of k only when every holder of
 *       k that some acceptor of the slot (or the leader itself) is currently bound to has accepted it.
 *       A grantor that accepted the write while bound to H made H wait for it; one that granted H
 *       after accepting it reported a slot at or past it, so H applies it before reading.</li>
 *   <li><b>Grace and exclusion (§3.8).</b> A guard says whether the holder heard from a leader of its
 *       ballot within t_grace. A grantor grants only such holders, so a holder cut off from the
 *       leader loses its leases and stops holding up writes after t_grace + t_guard + t_lease.</li>
 *   <li><b>Restarts.</b> A replica that starts considers itself bound to every holder for
 *       t_lease(1+ε): promises its previous incarnation granted are still trusted for that long.</li>
 * </ul>
 * <b>Configurations through the log (§3).</b> With {@link AutoAssignment} settings the configuration is
 * a log entry ({@link LeaseConfiguration}: a put of a reserved key whose version is its slot) that the
 * leader proposes from the replicas' read statistics; every replica switches when the entry applies
 * (it reads the configuration back from its state, so a snapshot carries it). A holder reads only under
 * the configuration it applied, with promises granted for that version, and refuses every read while
 * a configuration entry sits in its log unapplied; the leader makes writes wait for the holders of the
 * newest configuration and of its predecessor until t_lease(1+ε) of its time after it saw the newest
 * committed, and proposes a change only after that (why it is safe: docs/leases.md). Without them the
 * configuration is the static {@link QuorumLeaseConfig#assignment()}, version 0.
 */
public final class QuorumLease implements LeaseHooks {
    private final QuorumLeaseConfig config;
    private final KeyExtractor keys;
    /** Automatic assignment through the log, or null: the static configuration, version 0. */
    private final AutoAssignment auto;
    private final LeaseConfigurations configs;
    private LeaseView view;
    private int self;
    private int n;
    private boolean started;
    private long now;

    // Grantor side: bound to holder i until boundUntil[i] (local time); bound to all until bootBoundUntil.
    private long[] boundUntil;
    private long bootBoundUntil;

    // Holder side: the guard in flight to grantor i and the promise it holds from i.
    private long[] guardSeq;
    private long[] guardSentAt;
    private long[] promiseUntil;
    private long[] promiseSlot;
    /** The ballot grantor i had promised when it granted (the PROMISE's ballot). */
    private Ballot[] promiseBallot;
    private long nextGuardSeq;
    private long lastGuardRound = Long.MIN_VALUE;
    private Ballot leaderHeard;
    private long leaderHeardAt = Long.MIN_VALUE;

    // Acceptor side: periodic BOUND reports for uncommitted slots.
    private long lastBoundReport = Long.MIN_VALUE;

    // Leader side: per in-flight slot, who acknowledged it and what each acknowledger reported.
    private Ballot reportsBallot;
    private final TreeMap<Long, SlotReports> reports = new TreeMap<>();

    private static final class SlotReports {
        long acknowledged;
        long reported;
        final long[] seq;
        final long[] holders;

        SlotReports(int n) {
            seq = new long[n];
            holders = new long[n];
            Arrays.fill(seq, Long.MIN_VALUE);
        }
    }

    /** Reads this replica served on its quorum lease (for the simulator's counts). */
    private long holderReads;
    private final ReadObserver observer;

    /** What {@link #mayServeLocalRead} decided, and the first rule that refused (rule numbers of docs/leases.md). */
    public enum ReadDecision {
        /** Served locally. */
        SERVED,
        /** No clock reading yet. */
        NO_CLOCK,
        /** This replica is no voter of the membership it applied (a learner, a spare, a removed replica; rule QL1). */
        NOT_VOTER,
        /** This replica does not hold the key (rule 4a), or the command names no key. */
        NOT_HOLDER,
        /** Too few unexpired promises for a phase 1 quorum with this replica (rule 4b, QL2). */
        TOO_FEW_PROMISES,
        /** Neither applied through the slot the promises report nor holding current-ballot entries through it (rule 4c). */
        BEHIND_PROMISED_SLOT,
        /** An accepted entry past the applied slot writes the key (rule 4d). */
        PENDING_WRITE,
        /** A lease configuration entry past the applied slot is not applied yet (configurations through the log). */
        PENDING_CONFIG,
        /** A membership change past the applied slot is not applied yet (rule QL3). */
        PENDING_MEMBERSHIP
    }

    /** Sees every local-read decision (experiments' breakdowns); must not call back into the replica. */
    @FunctionalInterface
    public interface ReadObserver {
        void decided(Command read, ReadDecision decision, long nowNanos);

        ReadObserver NONE = (read, decision, nowNanos) -> {};
    }

    public QuorumLease(QuorumLeaseConfig config, KeyExtractor keys) {
        this(config, keys, ReadObserver.NONE);
    }

    public QuorumLease(QuorumLeaseConfig config, KeyExtractor keys, ReadObserver observer) {
        this(config, keys, observer, null);
    }

    /**
     * With {@code auto} non-null, lease configurations are agreed through the log and assigned from read
     * statistics, starting from {@code config.assignment()} as version 0; {@code keys} must be
     * {@link KeyExtractor#KV} (the configuration is stored in the key-value state machine).
     */
    public QuorumLease(QuorumLeaseConfig config, KeyExtractor keys, ReadObserver observer, AutoAssignment auto) {
        this.config = config;
        this.keys = keys;
        this.observer = observer;
        this.auto = auto;
        this.configs = auto == null ? null : new LeaseConfigurations(config, auto);
    }

    @Override
    public void attach(LeaseView replicaView) {
        this.view = replicaView;
        this.self = replicaView.self();
        this.n = replicaView.clusterSize();
        this.boundUntil = new long[n];
        this.guardSeq = new long[n];
        this.guardSentAt = new long[n];
        this.promiseUntil = new long[n];
        this.promiseSlot = new long[n];
        this.promiseBallot = new Ballot[n];
        Arrays.fill(boundUntil, Long.MIN_VALUE);
        Arrays.fill(promiseUntil, Long.MIN_VALUE);
        if (configs != null) {
            configs.attach(replicaView);
        }
    }

    @Override
    public void onClock(ClockReading reading) {
        if (!started) {
            started = true;
            now = reading.monotonicNanos();
            bootBoundUntil = now + config.bindLocalNanos();
        }
        now = Math.max(now, reading.monotonicNanos());
        if (configs != null) {
            configs.onClock(now);
            refreshConfiguration();
        }
        if (lastGuardRound == Long.MIN_VALUE || now - lastGuardRound >= config.renewNanos()) {
            lastGuardRound = now;
            sendGuards();
        }
        if (view.lastSlot() > view.commitSlot()
                && (lastBoundReport == Long.MIN_VALUE || now - lastBoundReport >= config.renewNanos())) {
            lastBoundReport = now;
            Ballot ballot = view.promised();
            if (ballot.nodeId() != self && ballot.nodeId() >= 0 && ballot.nodeId() < n) {
                // Re-report (lost reports, lapsed bindings): the leader keeps the newest per slot.
                view.send(new Message.Lease(self, ballot.nodeId(), ballot, Message.Lease.Kind.BOUND, now,
                        view.commitSlot() + 1, view.lastSlot(), boundSet()));
            }
        }
    }

    private void sendGuards() {
        long heard = leaderHeard != null && leaderHeard.equals(view.promised()) && now - leaderHeardAt <= config.graceNanos()
                ? 1 : 0;
        if (view.role() == Role.LEADER) {
            heard = 1; // The leader hears itself.
        }
        for (int peer = 0; peer < n; peer++) {
            if (peer == self) {
                continue;
            }
            guardSeq[peer] = ++nextGuardSeq;
            guardSentAt[peer] = now;
            view.send(new Message.Lease(self, peer, view.promised(), Message.Lease.Kind.GUARD, guardSeq[peer], version(), 0,
                    heard));
        }
    }

    /** Holders this grantor is bound to now (bit i = node i; never itself). */
    private long boundSet() {
        if (!started || now < bootBoundUntil) {
            return KeyAssignment.allNodes(n) & ~(1L << self);
        }
        long bits = 0;
        for (int i = 0; i < n; i++) {
            if (i != self && boundUntil[i] > now) {
                bits |= 1L << i;
            }
        }
        return bits;
    }

    @Override
    public void onMessage(Message message) {
        if (message instanceof Message.Lease m) {
            switch (m.kind()) {
                case GUARD -> onGuard(m);
                case PROMISE -> onPromise(m);
                case BOUND -> onBound(m);
                case READS -> {
                    if (configs != null) {
                        configs.onReads(m);
                    }
                }
            }
            return;
        }
        boolean fromLeader = (message instanceof Message.Accept || message instanceof Message.Heartbeat
                || message instanceof Message.InstallSnapshot) && message.ballot().nodeId() == message.from()
                && !message.ballot().isBelow(view.promised());
        if (!fromLeader) {
            return;
        }
        leaderHeard = message.ballot();
        leaderHeardAt = now;
        if (message instanceof Message.Accept m && !m.entries().isEmpty()) {
            long low = Long.MAX_VALUE;
            long high = Long.MIN_VALUE;
            for (Entry entry : m.entries()) {
                low = Math.min(low, entry.slot());
                high = Math.max(high, entry.slot());
            }
            // Handled before the replica accepts, at the same instant: the holders this acceptor is
            // bound to when it accepts these slots.
            view.send(new Message.Lease(self, m.from(), m.ballot(), Message.Lease.Kind.BOUND, now, low, high, boundSet()));
        }
    }

    /** Grantor: a holder asks for (or renews) its lease. */
    private void onGuard(Message.Lease m) {
        if (m.holders() != 1 || m.ballot().isBelow(view.promised())) {
            return; // Excluded: it has not heard from the current leader within the grace period.
        }
        long voters = view.appliedVoters();
        if (config.followsMembership() && ((voters & (1L << self)) == 0 || (voters & (1L << m.from())) == 0)) {
            return; // Rule QL2: only a voter grants, and only to a voter; a leaving replica's bindings lapse.
        }
        boundUntil[m.from()] = Math.max(boundUntil[m.from()], now + config.bindLocalNanos());
        // Echoes the configuration version the holder asked under: the holder counts it only under that version.
        view.send(new Message.Lease(self, m.from(), view.promised(), Message.Lease.Kind.PROMISE, m.seq(), m.slotLow(),
                view.lastSlot(), 0));
    }

    /** Holder: a grantor's promise, counted only if it answers the guard in flight within t_guard. */
    private void onPromise(Message.Lease m) {
        int grantor = m.from();
        if (m.seq() != guardSeq[grantor] || now - guardSentAt[grantor] > config.guardNanos()
                || (m.slotLow() != version() && (configs == null || configs.holdersFollowChanges()))) {
            return; // Late, not the guard in flight, or granted under another configuration version.
        }
        promiseUntil[grantor] = guardSentAt[grantor] + config.holdLocalNanos();
        promiseSlot[grantor] = m.slotHigh();
        promiseBallot[grantor] = m.ballot();
    }

    /** Leader: an acceptor's bound holders for a range of slots (the newest report per slot wins). */
    private void onBound(Message.Lease m) {
        Ballot own = view.ownBallot();
        if (own == null || !own.equals(m.ballot())) {
            return;
        }
        syncBallot(own);
        long low = Math.max(m.slotLow(), view.commitSlot() + 1);
        long high = Math.min(m.slotHigh(), view.lastSlot());
        for (long slot = low; slot <= high; slot++) {
            SlotReports r = reports.computeIfAbsent(slot, s -> new SlotReports(n));
            int g = m.from();
            if (m.seq() > r.seq[g]) {
                r.seq[g] = m.seq();
                r.holders[g] = m.holders();
                r.reported |= 1L << g;
            }
        }
    }

    private void syncBallot(Ballot own) {
        if (!own.equals(reportsBallot)) {
            reports.clear();
            reportsBallot = own;
        }
    }

    @Override
    public void onAcknowledged(int peer, long[] slots) {
        Ballot own = view.ownBallot();
        if (own == null) {
            return;
        }
        syncBallot(own);
        for (long slot : slots) {
            if (slot > view.commitSlot()) {
                reports.computeIfAbsent(slot, s -> new SlotReports(n)).acknowledged |= 1L << peer;
            }
        }
    }

    @Override
    public void onApplied(Entry entry) {
        reports.headMap(entry.slot(), true).clear();
        if (configs != null) {
            configs.onApplied(entry);
            refreshConfiguration();
        }
    }

    @Override
    public void onSnapshotInstalled(long slot) {
        if (configs != null) {
            configs.onSnapshotInstalled(slot);
            refreshConfiguration();
        }
    }

    /** Reads the applied configuration back if one applied; on a new version, old promises no longer count. */
    private void refreshConfiguration() {
        if (configs.refresh()) {
            if (configs.holdersFollowChanges()) {
                Arrays.fill(promiseUntil, Long.MIN_VALUE);
            }
            if (started) {
                lastGuardRound = now;
                sendGuards(); // Ask for promises under the new version at once.
            }
        }
    }

    /** The configuration version this replica reads under (0: the static one; -1: unknown). */
    private long version() {
        return configs == null ? 0 : configs.version();
    }

    @Override
    public Command leaderProposal(long nextSlot) {
        return configs == null ? null : configs.proposal(nextSlot, now);
    }

    @Override
    public void onStepDown() {
        reports.clear();
        reportsBallot = null;
    }

    /** Holders of the key {@code entry} writes (none for a no-op; everyone for a key it cannot name). */
    private long holdersOf(Entry entry) {
        if (entry.command().isNoop() || (configs != null && LeaseConfiguration.isConfigurationCommand(entry.command()))) {
            return 0;
        }
        long[] voterSets = view.votersInFlight();
        if (GroupMembership.isChange(entry.command())) {
            long every = 0; // Rule QL3: a membership change waits for every bound holder, whatever it holds.
            for (long voters : voterSets) {
                every |= voters;
            }
            return every;
        }
        String key = keys.keyOf(entry.command().payload());
        long holders = 0; // Rule QL4: the key's holders under every membership that may govern the slot.
        for (long voters : voterSets) {
            holders |= configs == null ? config.assignment().holdersAmong(key, voters) : configs.writeHolders(key, now, voters);
        }
        return holders;
    }

    @Override
    public long requiredAcceptors(Entry entry) {
        if (!config.waitForHolders()) {
            return 0; // The negative control: writes commit without the key's holders.
        }
        long holders = holdersOf(entry);
        if (holders == 0) {
            return 0;
        }
        long bound = boundSet();
        Ballot own = view.ownBallot();
        SlotReports r = own != null && own.equals(reportsBallot) ? reports.get(entry.slot()) : null;
        if (r != null) {
            for (int g = 0; g < n; g++) {
                if ((r.acknowledged & r.reported & (1L << g)) != 0) {
                    bound |= r.holders[g];
                }
            }
        }
        return holders & bound;
    }

    /** A slot commits only once every acceptor that acknowledged it has said which holders it is bound to. */
    @Override
    public boolean mayCommit(Entry entry, long nowNanos) {
        if (!config.waitForHolders() || holdersOf(entry) == 0) {
            return true;
        }
        Ballot own = view.ownBallot();
        SlotReports r = own != null && own.equals(reportsBallot) ? reports.get(entry.slot()) : null;
        return r == null || (r.acknowledged & ~r.reported) == 0;
    }

    /**
     * Moraru §3: a write of k is acknowledged once every holder of k (and a write quorum) accepted
     * it, not once every slot ahead of it did (those may wait for the holders of other keys). Safe
     * because of rule 4d: every replica that could read k locally either holds the answered write
     * past its applied slot (and refuses k until it applies it) or must first apply past it. Without
     * rule 4d (its negative control) writes are answered when they apply, as before.
     */
    @Override
    public boolean answersWritesBeforeApply() {
        return config.pendingWriteCheck();
    }

    @Override
    public boolean mayServeLocalRead(Role role, Command read, long nowNanos) {
        ReadDecision decision = decide(read);
        observer.decided(read, decision, nowNanos);
        if (decision != ReadDecision.SERVED) {
            return false;
        }
        holderReads++;
        return true;
    }

    private ReadDecision decide(Command read) {
        if (!started || view.clock() == null) {
            return ReadDecision.NO_CLOCK;
        }
        String key = keys.keyOf(read.payload());
        if (configs != null && key != null) {
            configs.countRead(key);
        }
        long voters = config.followsMembership() ? view.appliedVoters() : KeyAssignment.allNodes(n);
        if ((voters & (1L << self)) == 0) {
            return ReadDecision.NOT_VOTER;
        }
        if (key == null || (readHolders(key, voters) & (1L << self)) == 0) {
            return ReadDecision.NOT_HOLDER;
        }
        long[] slots = new long[n];
        int valid = 0;
        Ballot newestPromised = null;
        for (int g = 0; g < n; g++) {
            if (g != self && (voters & (1L << g)) != 0 && promiseUntil[g] > now) {
                slots[valid++] = promiseSlot[g];
                if (newestPromised == null || promiseBallot[g].isAbove(newestPromised)) {
                    newestPromised = promiseBallot[g];
                }
            }
        }
        // With this replica, a phase 1 quorum of the voters (rule QL2): it meets every write quorum. A majority
        // does not with RS-Paxos, where F + 1 acceptances choose a plain value.
        int needed = view.readQuorum(Long.bitCount(voters)) - 1;
        if (valid < needed) {
            return ReadDecision.TOO_FEW_PROMISES;
        }
        Arrays.sort(slots, 0, valid);
        long applied = view.appliedSlot();
        if (config.promisedSlotCheck() && needed > 0 && applied < slots[needed - 1]
                && !(config.pendingWriteCheck() && holdsCurrentEntriesThrough(slots[needed - 1], newestPromised))) {
            return ReadDecision.BEHIND_PROMISED_SLOT;
        }
        if (config.pendingWriteCheck() || configs != null || config.followsMembership()) {
            for (long slot = applied + 1; slot <= view.lastSlot(); slot++) {
                Entry entry = view.entry(slot);
                if (entry == null || entry.command().isNoop()) {
                    continue;
                }
                if (config.followsMembership() && GroupMembership.isChange(entry.command())) {
                    return ReadDecision.PENDING_MEMBERSHIP; // Rule QL3: read under it once applied.
                }
                if (configs != null && configs.holdersFollowChanges() && LeaseConfiguration.isConfigurationCommand(entry.command())) {
                    return ReadDecision.PENDING_CONFIG; // It may change who holds k: read under it once applied.
                }
                if (!config.pendingWriteCheck()) {
                    continue;
                }
                String written = keys.keyOf(entry.command().payload());
                if (written == null || written.equals(key)) {
                    return ReadDecision.PENDING_WRITE;
                }
            }
        }
        return ReadDecision.SERVED;
    }

    /**
     * Rule 4c's second form: this replica holds an entry for every slot past its applied slot through
     * {@code slot}, each accepted in a ballot at least {@code promised} (the newest ballot its trusted
     * grantors had promised when they granted). A write W of k chosen in ballot b at slot j ≤ slot that a
     * grantor accepted before granting has b ≤ that grantor's promised ballot, so an entry at j in a
     * ballot ≥ b holds W (Paxos Made Simple §2.2, P2c), and rule 4d (checked next, over every entry past
     * the applied slot) sees that it writes k. Without it the holder must apply through the slot, which
     * at a site far from the leader takes its round trip plus the commit wait. Used only with rule 4d.
     */
    private boolean holdsCurrentEntriesThrough(long slot, Ballot promised) {
        if (slot > view.lastSlot()) {
            return false;
        }
        for (long s = view.appliedSlot() + 1; s <= slot; s++) {
            Entry entry = view.entry(s);
            if (entry == null || entry.ballot().isBelow(promised)) {
                return false;
            }
        }
        return true;
    }

    /** Holders of {@code key} among {@code voters} under the configuration this replica reads under (none while it is unknown). */
    private long readHolders(String key, long voters) {
        return configs == null ? config.assignment().holdersAmong(key, voters) : configs.readHolders(key, voters);
    }

    /**
     * The holders of the key {@code payload} reads, as {@link #decide} counts them: among the voters this replica applied
     * when the lease follows the membership (rule QL1; bit i = replica id i, not the whole id space), -1 while the
     * configuration is unknown or the command reads no key. A refused read's answer names them to the client.
     */
    public long readHoldersOf(byte[] payload) {
        String key = view == null || configuration() == null ? null : keys.keyOf(payload);
        if (key == null) {
            return -1;
        }
        return readHolders(key, config.followsMembership() ? view.appliedVoters() : KeyAssignment.allNodes(n));
    }

    /** The configuration this replica applied (null while unknown), for tests and experiments. */
    public LeaseConfiguration configuration() {
        return configs == null ? LeaseConfiguration.initial(config.assignment()) : configs.current();
    }

    /** Configuration entries this replica proposed as leader. */
    public long configurationsProposed() {
        return configs == null ? 0 : configs.proposed();
    }

    /** Reads this replica served under its quorum lease. */
    public long holderReads() {
        return holderReads;
    }

    @Override
    public String toString() {
        return "quorum-lease(" + config + (auto == null ? "" : ", " + auto) + ")";
    }
}
