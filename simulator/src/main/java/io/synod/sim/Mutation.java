package io.synod.sim;

import java.util.Locale;

/**
 * Deliberate protocol or runtime bugs: negative controls that show the simulator and its checks can
 * catch what they claim to catch. A mutated run is expected to report violations.
 */
public enum Mutation {
    /** The real protocol. */
    NONE("none"),
    /**
     * A write quorum one acceptance short of a majority: a value can be chosen by a set that a later
     * phase 1 quorum does not intersect (breaks "any two quorums intersect", Paxos Made Simple §2.2).
     */
    WRITE_QUORUM_TOO_SMALL("small-write-quorum"),
    /**
     * Reads served from the local state machine with no lease and no log round: a deposed leader that
     * does not know it was deposed answers stale reads.
     */
    LOCAL_READS_WITHOUT_LEASE("local-reads"),
    /**
     * The disk never records the promised ballot: after a crash an acceptor forgets its promise and
     * accepts from a ballot it promised to ignore (Paxos requires the promise to be stable storage).
     */
    PROMISE_NOT_PERSISTED("forget-promise"),
    /**
     * Messages and replies leave before their Ready is fsynced, so a crash can lose an acceptance that
     * a leader already counted (the runtime contract of {@code Ready}).
     */
    SEND_BEFORE_FSYNC("send-before-fsync"),
    /**
     * The group driver answers a write OK when its leader hands the entry to the disk, before the fsync that covers
     * it and before any acceptor made it durable: a crash then loses an acknowledged write (the Ready contract: nothing
     * that depends on an entry leaves before its fsync). Caught at the reply by the durability check.
     */
    REPLY_BEFORE_FSYNC("reply-before-fsync"),
    /**
     * Several groups per node ({@code --groups}): the node log's fsync also completes the persist requests appended
     * after it started, whose records it did not cover, so a group acknowledges (or accepts) what a crash before the
     * next fsync loses. Harmless with one group, whose next request waits for the fsync under way. Caught at the reply
     * by the durability check.
     */
    SHARED_FSYNC_SKIPS_GROUP("shared-fsync-skips-group"),
    /**
     * A quorum-lease holder that refused a read because it holds an accepted, unapplied write to the key answers the
     * read from its local state when the driver asks it again, instead of asking the lease (Moraru et al. 2014, §3,
     * rule 4d: a holder may not serve a key with a pending write). Caught by the linearizability check.
     */
    HOLDER_READ_EARLY("holder-read-early"),
    /**
     * The group driver's watch answers carry their events in reverse slot order. Caught by the watchers' order check.
     */
    WATCH_OUT_OF_ORDER("watch-out-of-order"),
    /**
     * Coded mode: a coded value commits with a plain majority instead of {@code Q_W(X) = N - Q_R + X},
     * so a read quorum may meet it in fewer than X acceptors and phase 1 replaces a chosen value
     * (RS-Paxos, Mu et al. 2014, §4, Fig. 2).
     */
    CODED_MAJORITY_WRITE("coded-majority-write", true),
    /**
     * Coded mode: phase 1 re-proposes a coded value it cannot rebuild (fewer than X shards among the
     * promises), as a stub without shards; the group then decides a value nobody can rebuild and
     * stalls (RS-Paxos §4: never decide an unrecoverable value).
     */
    PHASE1_FEW_SHARDS("phase1-few-shards", true),
    /**
     * Coded mode: a recovery read rebuilds a value from shards without checking their CRC32C or the
     * value's, so a shard corrupted in flight yields a wrong value that gets applied.
     */
    RECOVERY_SKIPS_CRC("recovery-skips-crc", true),
    /**
     * Coded mode with deferred follower rebuild: a replica applies commands and serves reads of a key
     * it applied without rebuilding its bytes, without rebuilding them first, so it answers with the
     * bytes the key held before (docs/erasure.md, deferred rebuild rule 1).
     */
    DEFERRED_STALE_READ("deferred-stale-read", true),
    /**
     * Coded mode with coding changes ({@code SimCoding#alternate}): phase 1 waits only for the read quorum
     * of the coding the candidate has applied, ignoring the change entries beyond it; after a chosen change
     * to a smaller F (a larger read quorum, smaller write quorums) that the candidate has not applied, its
     * read quorum can meet a chosen value in fewer than X acceptors and replace it (docs/erasure.md
     * "Coding changes").
     */
    CODING_CHANGE_STALE_QUORUM("coding-change-stale-quorum", true),
    /**
     * No CheckQuorum: a leader cut off from its peers while the election oracle goes on naming it never
     * steps down, so nobody replaces it and nothing commits ({@link SimLeaderIsolation}; etcd's CheckQuorum).
     * A liveness bug, caught as {@code LIVENESS}.
     */
    NO_CHECK_QUORUM("no-check-quorum"),
    /**
     * Acceptors promise any ballot, however far beyond the epochs seen in ZooKeeper: the hostile peer's
     * huge-epoch Prepare is promised durably and no later leader can win, so the run wedges (LIVENESS).
     */
    NO_EPOCH_BOUND("no-epoch-bound"),
    /**
     * Acceptors take a commit point from the very Accept that wrote the slot, and acknowledge another value
     * for a chosen slot: the hostile peer's forged Accept is applied on one replica (a slot conflict).
     */
    NO_DIVERGENCE_CHECK("no-divergence-check"),
    /**
     * Membership changes (docs/membership.md): phase 1 waits for a majority of the membership the candidate
     * applied only, not of every membership a change entry past its commit point may have put in force (rule
     * M3 off); a candidate that missed changes can miss a value chosen by the newer voters.
     */
    MEMBERSHIP_STALE_PHASE1("membership-stale-phase1", false, true),
    /** Membership changes: a learner's acceptances and promises are counted as a voter's (rule M2 off). */
    MEMBERSHIP_LEARNER_VOTES("membership-learner-votes", false, true),
    /**
     * Membership changes under Raft's rule (the raft-dev 2015 single-server change bug): a configuration counts
     * as soon as it is in the leader's log, several changes may be in flight, and a new leader changes the
     * membership before an entry of its own ballot is chosen (rule M5 off).
     */
    MEMBERSHIP_RAFT_RULE("membership-raft-rule", false, true),
    /** Membership changes: a voter is swapped for another in one step, without the joint membership between (rule M4 off). */
    MEMBERSHIP_SWAP("membership-swap", false, true),
    /** Membership changes: learners are promoted however far behind they are (rule M6 off). */
    MEMBERSHIP_EARLY_PROMOTE("membership-early-promote", false, true),
    /**
     * Membership changes: a removed replica's disk is wiped and it is added back under its old id, not as a new
     * incarnation (rule M7 off; CockroachDB #40367's class of bug).
     */
    MEMBERSHIP_REUSED_IDENTITY("membership-reused-identity", false, true),
    /**
     * Membership changes on a coded group: phase 1 counts a plain majority of each membership's voters, the
     * membership's own rule, instead of RS-Paxos's read quorum {@code voters - F} (rule M8 off); with 5 voters and
     * X = 3 it meets a write quorum of F + X in 2 acceptors, too few to rebuild the value.
     */
    MEMBERSHIP_CODED_MAJORITY_READ("membership-coded-majority-read", true, true),
    /**
     * Membership changes on a coded group whose nodes outnumber the code length N ({@code --nodes 6 --coding 5,1,3}):
     * a replica id i &ge; N gets shard {@code i mod N} instead of the whole value (rule M9 off), so two acceptors may
     * hold one shard and F + X acceptances hold fewer than X distinct shards.
     */
    MEMBERSHIP_SHARED_SHARD("membership-shared-shard", true, true);

    private final String cliName;
    private final boolean needsCoding;
    private final boolean needsMembershipChanges;

    Mutation(String cliName) {
        this(cliName, false);
    }

    Mutation(String cliName, boolean needsCoding) {
        this(cliName, needsCoding, false);
    }

    Mutation(String cliName, boolean needsCoding, boolean needsMembershipChanges) {
        this.cliName = cliName;
        this.needsCoding = needsCoding;
        this.needsMembershipChanges = needsMembershipChanges;
    }

    /** Whether the mutation only exists with membership changes on ({@code --membership-changes}). */
    public boolean needsMembershipChanges() {
        return needsMembershipChanges;
    }

    /** Whether the mutation only exists with RS-Paxos coding on ({@code --coding}). */
    public boolean needsCoding() {
        return needsCoding;
    }

    public String cliName() {
        return cliName;
    }

    /** Parses a command-line name; throws {@link IllegalArgumentException} listing the valid names. */
    public static Mutation fromCliName(String name) {
        String wanted = name.toLowerCase(Locale.ROOT);
        for (Mutation mutation : values()) {
            if (mutation.cliName.equals(wanted)) {
                return mutation;
            }
        }
        StringBuilder names = new StringBuilder();
        for (Mutation mutation : values()) {
            names.append(names.length() == 0 ? "" : ", ").append(mutation.cliName);
        }
        throw new IllegalArgumentException("unknown mutation '" + name + "' (expected one of " + names + ")");
    }
}
