package io.synod.core.paxos;

/**
 * A value accepted in one log slot, with the ballot it was accepted in. Phase 1 uses the ballot to
 * pick, per slot, the value accepted in the highest ballot (Lamport, "Paxos Made Simple", §2.2).
 */
public record Entry(long slot, Ballot ballot, Command command) {
    public Entry {
        if (slot < 1) {
            throw new IllegalArgumentException("log slots start at 1, got " + slot);
        }
        if (ballot == null || command == null) {
            throw new IllegalArgumentException("entry needs a ballot and a command");
        }
    }

    public Entry withBallot(Ballot newBallot) {
        return new Entry(slot, newBallot, command);
    }

    public int sizeBytes() {
        return 24 + command.sizeBytes();
    }
}
