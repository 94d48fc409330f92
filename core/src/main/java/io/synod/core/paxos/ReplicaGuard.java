package io.synod.core.paxos;

import java.util.LinkedHashSet;
import java.util.Iterator;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * Defence in depth inside the replica: checks that hold whatever the network lets through (with or
 * without authenticated peers). See docs/security.md, "Defence in depth in the replica".
 *
 * <ul>
 *   <li><b>Epoch bound.</b> Paxos lets an acceptor promise any higher ballot (Paxos Made Simple, §2.2),
 *       and a promise only grows, so one message with a huge ballot would lock every later leader out:
 *       epochs come from the ZooKeeper counter, which grows by one per election. A message whose
 *       ballot epoch exceeds the newest epoch this node has seen for the group by more than
 *       {@link #EPOCH_SLACK} is dropped before it reaches any role: no promise, commit point or value
 *       changes. The newest epoch is an input ({@link ElectionEvent.EpochSeen}, and every
 *       {@link ElectionEvent.Elected}); until the first one arrives the durable promise stands in for it.</li>
 *   <li><b>Divergence.</b> A leader proposes one value per slot in its ballot, and a chosen slot keeps
 *       its value (Paxos Made Simple, §2.3 / §3). An Accept that offers a different value for a slot this
 *       replica holds as chosen, or for a slot it holds in the same ballot, proves a forged or corrupt
 *       sender; it is counted once per slot with both values' checksums for the runtime to log.</li>
 * </ul>
 */
final class ReplicaGuard {
    /**
     * How many epochs a ballot may run ahead of the newest epoch this node saw in ZooKeeper. A legitimate
     * leader's epoch was allocated in ZooKeeper before its first message, and the epoch watch delivers
     * every allocation, so a view lags only by the allocations still in flight to it (one per election,
     * normally one or two); 64 covers an election storm while this node's watch lags, and still bounds
     * what a forged ballot can take from the future to 64 elections.
     */
    static final long EPOCH_SLACK = 64;
    /** Slots remembered as already reported, so a retransmitted divergence is logged and counted once. */
    private static final int REPORTED_CAP = 1024;

    private long seenEpoch = -1;
    private long refusedBallots;
    private long divergences;
    private String lastDivergence;
    private final Set<Long> reported = new LinkedHashSet<>();
    private boolean epochCheck = true;
    private boolean divergenceCheck = true;

    /** The newest epoch this node has seen for the group in ZooKeeper (never goes back). */
    void onEpochSeen(long epoch) {
        if (epoch > seenEpoch) {
            seenEpoch = epoch;
        }
    }

    long seenEpoch() {
        return seenEpoch;
    }

    /**
     * Whether {@code ballot} is within {@link #EPOCH_SLACK} of the newest epoch seen; counts a refusal. Before
     * any epoch was seen (a runtime that just started, before its first read of the epoch counter) the bound is
     * taken from {@code promised}, the durable promise: a fresh acceptor refuses 2^62 at once.
     */
    boolean admits(Ballot ballot, Ballot promised) {
        long base = seenEpoch >= 0 ? seenEpoch : promised.epoch();
        if (!epochCheck || ballot.epoch() - base <= EPOCH_SLACK) {
            return true;
        }
        refusedBallots++;
        return false;
    }

    /** Turns the epoch bound off: only for the simulator's negative control. */
    void disableEpochCheck() {
        epochCheck = false;
    }

    /** Turns the divergence refusal off: only for the simulator's negative control. */
    void disableDivergenceCheck() {
        divergenceCheck = false;
    }

    boolean checksDivergence() {
        return divergenceCheck;
    }

    /** Messages dropped because their ballot ran too far ahead of the epochs seen. */
    long refusedBallots() {
        return refusedBallots;
    }

    /** Records that {@code offered} disagrees with {@code held} for the same slot (once per slot). */
    void divergence(Entry held, Entry offered, boolean chosen) {
        if (!reported.add(held.slot())) {
            return;
        }
        if (reported.size() > REPORTED_CAP) {
            Iterator<Long> oldest = reported.iterator();
            oldest.next();
            oldest.remove();
        }
        divergences++;
        lastDivergence = "divergence at slot " + held.slot() + ": held " + describe(held) + (chosen ? " (chosen)" : "")
                + ", offered " + describe(offered) + " by node " + offered.ballot().nodeId()
                + (chosen ? "; refused" : "; the later value replaces it and the slot is not taken as chosen from that message");
    }

    long divergences() {
        return divergences;
    }

    /** A one-line description of the latest divergence, or null if none. */
    String lastDivergence() {
        return lastDivergence;
    }

    private static String describe(Entry entry) {
        return "ballot " + entry.ballot() + " checksum " + Integer.toHexString(checksum(entry));
    }

    /** The value's identity: the coded value's own checksum, or the CRC32C of a plain command's payload. */
    static int checksum(Entry entry) {
        if (entry.coded() != null) {
            return entry.coded().valueChecksum();
        }
        CRC32C crc = new CRC32C();
        crc.update(entry.command().payload());
        return (int) crc.getValue();
    }
}
