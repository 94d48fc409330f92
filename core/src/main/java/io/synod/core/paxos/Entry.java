package io.synod.core.paxos;

/**
 * A value accepted in one log slot, with the ballot it was accepted in. Phase 1 uses the ballot to
 * pick, per slot, the value accepted in the highest ballot (Lamport, "Paxos Made Simple", §2.2).
 *
 * <p>A plain entry ({@code coded == null}) carries its whole command. A coded entry (RS-Paxos, Mu
 * et al. 2014, §4) records its coding in {@link CodedValue}; its command is either the whole
 * command (a <em>full copy</em>, which counts as every shard) or a <em>stub</em>: the same client id
 * and sequence with an empty payload, next to at most one shard of the payload.
 *
 * <p>{@code stamp} is the lease policy's mark of the entry's creation (LeaseGuard, SIGMOD 2026 §3:
 * the creating leader's ballot and clock interval), or null without leases. It is part of the
 * value: phase 1 re-proposes it unchanged, so every replica that holds the slot's chosen value
 * holds the same stamp.
 */
public record Entry(long slot, Ballot ballot, Command command, CodedValue coded, LeaseStamp stamp) {
    public Entry {
        if (slot < 1) {
            throw new IllegalArgumentException("log slots start at 1, got " + slot);
        }
        if (ballot == null || command == null) {
            throw new IllegalArgumentException("entry needs a ballot and a command");
        }
        if (coded != null && command.payload().length != 0 && command.payload().length != coded.valueLength()) {
            throw new IllegalArgumentException("coded entry for slot " + slot + " carries " + command.payload().length
                    + " payload bytes: neither a stub (0) nor the whole value (" + coded.valueLength() + ")");
        }
    }

    /** A plain (uncoded) entry. */
    public Entry(long slot, Ballot ballot, Command command) {
        this(slot, ballot, command, null, null);
    }

    /** An entry without a lease stamp. */
    public Entry(long slot, Ballot ballot, Command command, CodedValue coded) {
        this(slot, ballot, command, coded, null);
    }

    public Entry withBallot(Ballot newBallot) {
        return new Entry(slot, newBallot, command, coded, stamp);
    }

    /** Whether this entry carries its whole command (plain, or a full copy of a coded value). */
    public boolean isComplete() {
        return coded == null || command.payload().length == coded.valueLength();
    }

    /** The stub of this coded entry holding {@code shard} (or none). */
    Entry stub(byte[] shard) {
        return new Entry(slot, ballot, new Command(command.clientId(), command.sequence(), new byte[0]),
                coded.withShard(shard), stamp);
    }

    /** This coded entry with its whole command (a full copy), without a shard. */
    Entry complete(Command full) {
        return new Entry(slot, ballot, full, coded == null ? null : coded.withShard(null), stamp);
    }

    /** Whether {@code other} holds the same value (for coded entries: the same coded value, whatever part each holds). */
    boolean sameValue(Entry other) {
        if (coded == null || other.coded == null) {
            return coded == null && other.coded == null && command.equals(other.command);
        }
        return coded.sameValue(other.coded) && command.clientId() == other.command.clientId()
                && command.sequence() == other.command.sequence();
    }

    public int sizeBytes() {
        return 24 + command.sizeBytes() + (coded == null ? 0 : 16 + coded.shardBytes() + coded.headerBytes()) + (stamp == null ? 0 : LeaseStamp.BYTES);
    }
}
