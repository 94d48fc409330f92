package io.synod.core.paxos;

import io.synod.core.util.Check;
import java.nio.ByteBuffer;

/**
 * A group's configuration of replicas (docs/membership.md): which replica ids vote (count in phase 1
 * and phase 2 quorums), which are learners (receive the log and snapshots, never counted), and which
 * ids are retired (removed once, never admitted again: a replica that lost its disk comes back under
 * a new id, a new incarnation, so its forgotten promises and accepts can never be counted). Ids are
 * {@code 0..universe-1}, the {@link ReplicaConfig#clusterSize()} of the replica; the initial
 * configuration of a group built from a static {@link ReplicaConfig} has every id voting.
 *
 * <p>A configuration changes through the log: a change entry (a plain command with the reserved
 * client id {@link #CHANGE_CLIENT}) carries the whole next configuration, and config(s), the
 * configuration that chooses slot s, is the initial one changed by every chosen change entry below s
 * (rule M1 of docs/membership.md, the α = 1 case of Lamport's "Reconfiguring a state machine").
 * Values are immutable; every operation checks the single-step rules and names the one broken.
 */
public final class GroupMembership {
    /** Client id reserved for membership-change commands (next to {@link Coding#CHANGE_CLIENT}). */
    public static final long CHANGE_CLIENT = Long.MAX_VALUE - 1;
    private static final int MAGIC = 0x534D454D; // "SMEM"
    private static final int BYTES = 4 + 4 + 8 + 8 + 8;

    private final int universe;
    private final long voters;
    private final long learners;
    private final long retired;

    private GroupMembership(int universe, long voters, long learners, long retired) {
        Check.argument(universe >= 1 && universe <= ReplicaConfig.MAX_CLUSTER_SIZE, "membership of %d ids, expected 1..%d",
                universe, ReplicaConfig.MAX_CLUSTER_SIZE);
        long all = universe == 64 ? -1L : (1L << universe) - 1;
        Check.argument(((voters | learners | retired) & ~all) == 0, "membership names an id outside 0..%d", universe - 1);
        Check.argument((voters & learners) == 0 && ((voters | learners) & retired) == 0,
                "membership names an id in two roles (voters %s, learners %s, retired %s)", ids(voters), ids(learners), ids(retired));
        Check.argument(voters != 0, "membership needs at least one voter");
        this.universe = universe;
        this.voters = voters;
        this.learners = learners;
        this.retired = retired;
    }

    /** Every id of {@code 0..clusterSize-1} votes: the static configuration. */
    public static GroupMembership allVoters(int clusterSize) {
        return new GroupMembership(clusterSize, (1L << clusterSize) - 1, 0, 0);
    }

    /** Ids {@code 0..voterCount-1} vote and the other ids of the universe are not members yet (spares). */
    public static GroupMembership firstVoters(int universe, int voterCount) {
        Check.argument(voterCount >= 1 && voterCount <= universe, "%d voters out of %d ids", voterCount, universe);
        return new GroupMembership(universe, (1L << voterCount) - 1, 0, 0);
    }

    /**
     * The ids of the bit set {@code voters} vote and the other ids of the universe are not members yet (spares): a
     * group placed on some of the cluster's nodes (docs/membership.md, "Placement").
     */
    public static GroupMembership ofVoters(int universe, long voters) {
        return new GroupMembership(universe, voters, 0, 0);
    }

    /** Adds {@code id}, not a member and never retired, as a learner. */
    public GroupMembership withLearner(int id) {
        checkId(id);
        Check.argument(!isMember(id), "replica %d is already a member of %s", id, this);
        Check.argument(!isRetired(id), "replica id %d was removed before: a replica comes back only as a new id (new incarnation)", id);
        return new GroupMembership(universe, voters, learners | bit(id), retired);
    }

    /** Promotes the learner {@code id} to voter. */
    public GroupMembership promoted(int id) {
        checkId(id);
        Check.argument(isLearner(id), "replica %d is not a learner of %s: only a learner is promoted", id, this);
        return new GroupMembership(universe, voters | bit(id), learners & ~bit(id), retired);
    }

    /** Removes the voter or learner {@code id}; its id is retired. */
    public GroupMembership without(int id) {
        checkId(id);
        Check.argument(isMember(id), "replica %d is not a member of %s", id, this);
        Check.argument(voters != bit(id), "replica %d is the last voter of %s", id, this);
        return new GroupMembership(universe, voters & ~bit(id), learners & ~bit(id), retired | bit(id));
    }

    /**
     * NEGATIVE CONTROL ONLY (the simulator's {@code membership-reused-identity} mutation): adds a retired id
     * back as a learner, as if a replica that lost its disk came back under its old identity.
     */
    public GroupMembership withReusedLearner(int id) {
        checkId(id);
        Check.argument(!isMember(id), "replica %d is already a member of %s", id, this);
        return new GroupMembership(universe, voters, learners | bit(id), retired & ~bit(id));
    }

    /**
     * NEGATIVE CONTROL ONLY (the {@code membership-swap} mutation): replaces voter {@code out} by
     * {@code in} in one step, without the joint configuration that holds both.
     */
    public GroupMembership swapped(int out, int in) {
        checkId(out);
        checkId(in);
        Check.argument(isVoter(out) && !isVoter(in), "swap needs voter %d out and non-voter %d in", out, in);
        return new GroupMembership(universe, (voters & ~bit(out)) | bit(in), learners & ~bit(in), (retired | bit(out)) & ~bit(in));
    }

    /**
     * How {@code next} differs from this configuration, if it is one single step (rule M4): a learner added,
     * one learner promoted, or one member removed. Returns the id that changes, or -1 if it is not one step.
     */
    int singleStepTo(GroupMembership next) {
        if (next.universe != universe) {
            return -1;
        }
        long changed = (voters ^ next.voters) | (learners ^ next.learners);
        if (Long.bitCount(changed) != 1) {
            return -1;
        }
        int id = Long.numberOfTrailingZeros(changed);
        boolean added = !isMember(id) && next.isLearner(id) && !isRetired(id);
        boolean promotedOne = isLearner(id) && next.isVoter(id);
        boolean removed = isMember(id) && !next.isMember(id) && next.isRetired(id);
        return (added || promotedOne || removed) && (retired | (removed ? bit(id) : 0)) == next.retired ? id : -1;
    }

    public boolean isVoter(int id) {
        return id >= 0 && id < universe && (voters & bit(id)) != 0;
    }

    public boolean isLearner(int id) {
        return id >= 0 && id < universe && (learners & bit(id)) != 0;
    }

    public boolean isMember(int id) {
        return isVoter(id) || isLearner(id);
    }

    public boolean isRetired(int id) {
        return id >= 0 && id < universe && (retired & bit(id)) != 0;
    }

    /** The voters as a bit set over ids. */
    public long voters() {
        return voters;
    }

    public long learners() {
        return learners;
    }

    /** Voters and learners: the replicas the leader sends the log to. */
    public long members() {
        return voters | learners;
    }

    public long retired() {
        return retired;
    }

    public int universe() {
        return universe;
    }

    public int voterCount() {
        return Long.bitCount(voters);
    }

    /** Whether this configuration's voters are all of {@code 0..universe-1} (the static configuration). */
    public boolean isStatic() {
        return learners == 0 && retired == 0 && voters == (1L << universe) - 1;
    }

    /** The log command that changes the group's configuration to this one. */
    Command changeCommand() {
        return new Command(CHANGE_CLIENT, 0, encode());
    }

    /** Whether {@code command} is a membership change ({@link #changeCommand()}). */
    public static boolean isChange(Command command) {
        return command.clientId() == CHANGE_CLIENT;
    }

    /** The configuration the chosen change {@code command} sets. */
    public static GroupMembership of(Command change) {
        return decode(change.payload());
    }

    /** The snapshot and log form: magic, universe, voters, learners, retired. */
    byte[] encode() {
        return ByteBuffer.allocate(BYTES).putInt(MAGIC).putInt(universe).putLong(voters).putLong(learners).putLong(retired).array();
    }

    /** Whether {@code bytes} start like an {@link #encode()}d configuration. */
    static boolean isEncoded(byte[] bytes, int offset) {
        return bytes.length - offset >= BYTES && ByteBuffer.wrap(bytes, offset, 4).getInt() == MAGIC;
    }

    static int encodedBytes() {
        return BYTES;
    }

    static GroupMembership decode(byte[] bytes) {
        Check.argument(bytes.length == BYTES, "membership of %d bytes, expected %d", bytes.length, BYTES);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        Check.argument(in.getInt() == MAGIC, "membership without its magic number");
        return new GroupMembership(in.getInt(), in.getLong(), in.getLong(), in.getLong());
    }

    private void checkId(int id) {
        Check.argument(id >= 0 && id < universe, "replica id %d outside 0..%d", id, universe - 1);
    }

    private static long bit(int id) {
        return 1L << id;
    }

    private static String ids(long mask) {
        StringBuilder out = new StringBuilder("{");
        for (long rest = mask; rest != 0; rest &= rest - 1) {
            out.append(out.length() > 1 ? "," : "").append(Long.numberOfTrailingZeros(rest));
        }
        return out.append('}').toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GroupMembership m && m.universe == universe && m.voters == voters && m.learners == learners
                && m.retired == retired;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(voters * 31 + learners) * 31 + Long.hashCode(retired) + universe;
    }

    @Override
    public String toString() {
        return "voters " + ids(voters) + " learners " + ids(learners) + (retired == 0 ? "" : " retired " + ids(retired));
    }
}
