package io.synod.leases;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.LeaseView;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.Role;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A {@link QuorumLease}'s configurations agreed through the log and their automatic assignment
 * (Moraru et al., SoCC 2014, §3, §5). Volatile, one per policy instance. Three duties:
 * <ul>
 *   <li><b>Which configuration is in force here.</b> The one stored in this replica's applied state
 *       (read back with {@link LeaseView#readState} after a configuration entry applied, after a snapshot
 *       and at start), or unknown (null) if the state cannot answer: then this replica holds no key.</li>
 *   <li><b>Which holders a write waits for (leader).</b> The holders of the newest configuration in the
 *       leader's log, and also of its predecessor (every replica, if unknown) until the newest is
 *       committed and t_lease(1+ε) of leader time has passed since this instance saw it committed.</li>
 *   <li><b>Assignment.</b> Counting this replica's reads, reporting them to the leader every period,
 *       and, as leader, proposing a new configuration when the reports call for one and no change may
 *       still have readers of an older configuration.</li>
 * </ul>
 */
final class LeaseConfigurations {
    private final QuorumLeaseConfig config;
    private final AutoAssignment auto;
    private LeaseView view;
    private int n;
    private int self;
    private long now;
    private boolean started;

    // In force here: the applied configuration (null: unknown) and the one it replaced (null: unknown).
    private LeaseConfiguration current;
    private LeaseConfiguration previous;
    /** A configuration entry applied at this slot (or a snapshot installed through it): read the state back. */
    private long dirtySlot = -1;
    private boolean dirtyInOrder;

    // The newest version this instance knows committed, and when it first saw that (after the real commit).
    private long seenCommittedVersion = Long.MIN_VALUE;
    private long seenCommittedAt;

    // Read statistics.
    private final ReadCounter counter;
    /** Reads counted since the last report (an idle group keeps its configuration). */
    private long freshReads;
    private long lastReport = Long.MIN_VALUE;
    private long round;
    /** Leader: per replica, the latest report round's counts (hash -> count), when it arrived. */
    private final List<Map<Long, Long>> reported = new ArrayList<>();
    private long[] reportRound;
    private long[] reportAt;
    /** When a report (or this leader's own count) last carried reads made since the previous one. */
    private long lastFreshAt = Long.MIN_VALUE;
    private long lastEvaluation = Long.MIN_VALUE;
    private Ballot evaluatedBallot;
    private long proposed;

    LeaseConfigurations(QuorumLeaseConfig config, AutoAssignment auto) {
        this.config = config;
        this.auto = auto;
        this.counter = new ReadCounter(auto.counterCapacity());
        this.current = LeaseConfiguration.initial(config.assignment());
    }

    void attach(LeaseView replicaView) {
        view = replicaView;
        n = replicaView.clusterSize();
        self = replicaView.self();
        reportRound = new long[n];
        reportAt = new long[n];
        Arrays.fill(reportRound, -1);
        for (int i = 0; i < n; i++) {
            reported.add(new HashMap<>());
        }
    }

    void onClock(long nowNanos) {
        now = nowNanos;
        if (!started) {
            started = true;
            // A restarted replica's state may already hold a configuration (snapshot, replayed log).
            dirtySlot = view.appliedSlot();
            dirtyInOrder = false;
        }
        noteCommitted();
        if (lastReport == Long.MIN_VALUE || now - lastReport >= auto.periodNanos()) {
            lastReport = now;
            report();
        }
    }

    // ---------------------------------------------------------------- configuration in force here

    void onApplied(Entry entry) {
        if (LeaseConfiguration.isConfigurationCommand(entry.command())) {
            // Applied right after this call: read back at the next refresh (state and policy never disagree,
            // even if the at-most-once table swallowed the command).
            dirtySlot = entry.slot();
            dirtyInOrder = true;
        }
    }

    void onSnapshotInstalled(long slot) {
        dirtySlot = slot;
        dirtyInOrder = false;
    }

    /** Reads the configuration back once the state covers the dirty slot; true if the version changed. */
    boolean refresh() {
        if (dirtySlot < 0 || view == null || view.appliedSlot() < dirtySlot) {
            return false;
        }
        boolean inOrder = dirtyInOrder;
        dirtySlot = -1;
        LeaseConfiguration read;
        try {
            byte[] result = view.readState(LeaseConfiguration.readCommand());
            read = result == null ? null : LeaseConfiguration.fromState(result, config.assignment());
        } catch (IllegalArgumentException e) {
            read = null; // Unreadable: hold nothing (and, as leader, wait for every bound holder) until the next one.
        }
        long before = version();
        if (read != null && current != null && read.version() == current.version()) {
            return false;
        }
        previous = inOrder && read != null ? current : null;
        current = read;
        noteCommitted();
        return version() != before;
    }

    /** The version this replica reads under: 0 before any configuration entry, -1 while unknown. */
    long version() {
        return current == null ? -1 : current.version();
    }

    LeaseConfiguration current() {
        return current;
    }

    /** Holders of {@code key} among {@code voters} under the applied configuration (nobody while it is unknown; rule QL5). */
    long readHolders(String key, long voters) {
        if (!auto.holdersFollowChanges()) {
            return config.assignment().holdersAmong(key, voters); // The negative control: version 0 forever.
        }
        return current == null ? 0 : current.holdersAmong(key, voters);
    }

    /** Whether holders follow changes (false only in a negative control). */
    boolean holdersFollowChanges() {
        return auto.holdersFollowChanges();
    }

    // ---------------------------------------------------------------- the leader's view of the log

    /** The slot of the newest configuration entry past the applied slot, or -1 if none. */
    private long newestLoggedSlot() {
        if (view == null) {
            return -1;
        }
        long newest = -1;
        for (long slot = view.appliedSlot() + 1; slot <= view.lastSlot(); slot++) {
            Entry entry = view.entry(slot);
            if (entry != null && LeaseConfiguration.isConfigurationCommand(entry.command())) {
                newest = slot;
            }
        }
        return newest;
    }

    /** The configuration an entry carries, or null if its bytes are not at hand (coded) or bad. */
    private static LeaseConfiguration carried(Entry entry) {
        try {
            return LeaseConfiguration.decodeCommand(entry.command().payload()).at(entry.slot());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Records when this instance first saw the newest configuration it knows committed. */
    private void noteCommitted() {
        if (view == null) {
            return;
        }
        long logged = newestLoggedSlot();
        long version;
        if (logged >= 0) {
            if (view.commitSlot() < logged) {
                return;
            }
            version = logged;
        } else {
            version = version();
        }
        if (version != seenCommittedVersion) {
            seenCommittedVersion = version;
            seenCommittedAt = now;
        }
    }

    /**
     * Leader: the holders among {@code voters} a write of {@code key} must wait for (those some acceptor is bound to
     * among them). The newest configuration's, and while an older one may still have readers, its predecessor's too
     * (every voter when that one is unknown). Why that suffices: docs/leases.md; with membership changes the caller
     * asks once per membership in flight (docs/membership.md, rules QL4, QL5).
     */
    long writeHolders(String key, long nowNanos, long voters) {
        long logged = newestLoggedSlot();
        LeaseConfiguration newest;
        LeaseConfiguration before;
        boolean settled;
        if (logged >= 0) {
            newest = carried(view.entry(logged));
            before = current;
            for (long slot = view.appliedSlot() + 1; slot < logged; slot++) {
                Entry entry = view.entry(slot);
                if (entry != null && LeaseConfiguration.isConfigurationCommand(entry.command())) {
                    before = carried(entry);
                }
            }
            settled = false;
        } else {
            newest = current;
            before = current != null && current.version() == 0 ? current : previous;
            noteCommitted();
            settled = current != null && seenCommittedVersion == current.version()
                    && nowNanos - seenCommittedAt >= config.bindLocalNanos();
        }
        long holders = newest == null ? voters : newest.holdersAmong(key, voters);
        if (!settled && auto.keepOldHolders()) {
            holders |= before == null ? voters : before.holdersAmong(key, voters);
        }
        return holders;
    }

    // ---------------------------------------------------------------- read statistics and assignment

    void countRead(String key) {
        counter.count(LeaseConfiguration.keyHash(key));
        freshReads++;
    }

    /** Every period: the most-read keys to the leader (or into the leader's own view), then decay. */
    private void report() {
        round++;
        long[][] top = counter.top(auto.reportKeys());
        Ballot ballot = view.promised();
        if (view.role() == Role.LEADER) {
            record(self, round, top, freshReads);
        } else if (ballot.nodeId() >= 0 && ballot.nodeId() < n && ballot.nodeId() != self) {
            for (long[] kc : top) {
                view.send(new Message.Lease(self, ballot.nodeId(), ballot, Message.Lease.Kind.READS, kc[1], kc[0], round,
                        freshReads));
            }
        }
        if (round % auto.halfLifePeriods() == 0) {
            counter.decay();
        }
        freshReads = 0;
    }

    void onReads(Message.Lease m) {
        Ballot own = view.ownBallot();
        if (own == null || !own.equals(m.ballot()) || m.from() < 0 || m.from() >= n || m.seq() <= 0) {
            return;
        }
        record(m.from(), m.slotHigh(), new long[][] {{m.slotLow(), m.seq()}}, Math.max(0, m.holders()));
    }

    private void record(int node, long reportRoundNumber, long[][] counts, long fresh) {
        Map<Long, Long> map = reported.get(node);
        if (reportRoundNumber != reportRound[node]) {
            map.clear();
            reportRound[node] = reportRoundNumber;
        }
        reportAt[node] = now;
        if (fresh > 0) {
            lastFreshAt = now;
        }
        for (long[] kc : counts) {
            if (map.size() < auto.reportKeys() || map.containsKey(kc[0])) {
                map.put(kc[0], kc[1]);
            }
        }
    }

    /**
     * Leader tick: the configuration command to append at {@code nextSlot}, or null. At most one
     * evaluation per period; only when the newest configuration is committed and settled (no reader of
     * an older one may remain) and the reports call for a different one.
     */
    Command proposal(long nextSlot, long nowNanos) {
        if (view == null || view.role() != Role.LEADER || current == null) {
            return null;
        }
        Ballot own = view.ownBallot();
        if (!own.equals(evaluatedBallot)) {
            evaluatedBallot = own;
            lastEvaluation = nowNanos; // A new leader first collects a period of reports.
            return null;
        }
        if (nowNanos - lastEvaluation < auto.periodNanos()) {
            return null;
        }
        if (newestLoggedSlot() >= 0) {
            return null;
        }
        noteCommitted();
        if (seenCommittedVersion != current.version()
                || (auto.keepOldHolders() && nowNanos - seenCommittedAt < config.bindLocalNanos())) {
            return null; // (The negative control, which forgets old holders anyway, changes again at once.)
        }
        lastEvaluation = nowNanos;
        if (lastFreshAt == Long.MIN_VALUE || nowNanos - lastFreshAt > auto.periodNanos()) {
            return null; // Nobody read in the last period: an idle group keeps its configuration (and its log quiet).
        }
        LeaseConfiguration wanted = assign();
        if (wanted.sameAssignment(current)) {
            return null;
        }
        proposed++;
        return wanted.command(nextSlot);
    }

    long proposed() {
        return proposed;
    }

    /**
     * The configuration the reports call for: leader + the ⌊V/2⌋ top readers per hot key, leader alone otherwise. Only
     * the V voters of the membership this leader applied are assigned keys (rule QL5: a learner, a spare or a removed
     * replica would hold nothing anyway, and a promoted learner gets its share at the next evaluation).
     */
    LeaseConfiguration assign() {
        long stale = 2 * auto.periodNanos();
        long voters = config.followsMembership() ? view.appliedVoters() : KeyAssignment.allNodes(n);
        TreeSet<Long> candidates = new TreeSet<>();
        for (int node = 0; node < n; node++) {
            if ((voters & (1L << node)) != 0 && reportRound[node] >= 0 && now - reportAt[node] <= stale) {
                candidates.addAll(reported.get(node).keySet());
            }
        }
        List<long[]> keyed = new ArrayList<>(); // {hash, total}
        for (long hash : candidates) {
            long total = 0;
            for (int node = 0; node < n; node++) {
                total += (voters & (1L << node)) != 0 ? count(node, hash, stale) : 0;
            }
            if (total >= auto.minReads()) {
                keyed.add(new long[] {hash, total});
            }
        }
        keyed.sort((a, b) -> a[1] != b[1] ? Long.compare(b[1], a[1]) : Long.compare(a[0], b[0]));
        int keep = Math.min(keyed.size(), auto.maxKeys());
        long[] hashes = new long[keep];
        long[] holders = new long[keep];
        long leaderBit = 1L << self;
        for (int i = 0; i < keep; i++) {
            long hash = keyed.get(i)[0];
            long incumbents = current != null && current.version() > 0 ? current.holdersOfHash(hash) : 0;
            Integer[] nodes = new Integer[n];
            double[] score = new double[n];
            for (int node = 0; node < n; node++) {
                nodes[node] = node;
                score[node] = (voters & (1L << node)) == 0 ? 0
                        : count(node, hash, stale) * ((incumbents & (1L << node)) != 0 ? auto.stickiness() : 1.0);
            }
            Arrays.sort(nodes, (a, b) -> score[a] != score[b] ? Double.compare(score[b], score[a]) : Integer.compare(a, b));
            long bits = leaderBit;
            int readers = 0;
            for (int node : nodes) {
                if (readers == Long.bitCount(voters) / 2 || score[node] <= 0) {
                    break;
                }
                if (node != self) {
                    bits |= 1L << node;
                    readers++;
                }
            }
            hashes[i] = hash;
            holders[i] = bits;
        }
        return LeaseConfiguration.of(auto.unlistedToAll() ? KeyAssignment.allNodes(n) : leaderBit, hashes, holders);
    }

    private long count(int node, long hash, long stale) {
        if (reportRound[node] < 0 || now - reportAt[node] > stale) {
            return 0; // Silent (crashed, cut off): its interests no longer count.
        }
        Long c = reported.get(node).get(hash);
        return c == null ? 0 : c;
    }
}
