package io.synod.core.sim;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.Snapshot;
import io.synod.protocol.ClientReply;
import java.util.Arrays;
import java.util.List;

/**
 * A running 64-bit hash over everything the simulator does (every event fired, every message and
 * reply delivered, every Ready taken). Two runs of one seed must end with the same hash; when they
 * do not, something nondeterministic leaked in (identity hash codes, hash-map order, wall time).
 * Message contents are hashed field by field, never through {@code hashCode()} of records that hold
 * arrays, whose hash codes are identities.
 */
final class TraceHash {
    private long state = 0x6A09E667F3BCC908L;

    long value() {
        return state;
    }

    void add(long value) {
        state = SimRandom.splitMix64(state ^ value) + 0x3C6EF372FE94F82BL;
    }

    void add(long a, long b, long c) {
        add(a);
        add(b);
        add(c);
    }

    void addBallot(Ballot ballot) {
        add(ballot == null ? -7 : ballot.epoch() * 131 + ballot.nodeId());
    }

    void addCommand(Command command) {
        add(command.clientId(), command.sequence(), Arrays.hashCode(command.payload()));
    }

    void addEntries(List<Entry> entries) {
        add(entries.size());
        for (Entry entry : entries) {
            add(entry.slot());
            addBallot(entry.ballot());
            addCommand(entry.command());
            if (entry.coded() != null) {
                add(entry.coded().valueLength(), entry.coded().valueChecksum(), Arrays.hashCode(entry.coded().shard()));
            }
            if (entry.stamp() != null) {
                addBallot(entry.stamp().creator());
                add(entry.stamp().earliestNanos());
                add(entry.stamp().latestNanos());
            }
        }
    }

    void addSnapshot(Snapshot snapshot) {
        if (snapshot == null) {
            add(-11);
            return;
        }
        add(snapshot.lastIncludedSlot(), Arrays.hashCode(snapshot.stateMachineBytes()), Arrays.hashCode(snapshot.sessions()));
    }

    void addReply(ClientReply reply) {
        add(reply.clientId(), reply.sequence(), reply.status().ordinal());
        add(reply.slot(), Arrays.hashCode(reply.result()), reply.leaderHint());
    }

    void addMessage(Message message) {
        add(message.from(), message.to(), 0);
        addBallot(message.ballot());
        if (message instanceof Message.Prepare m) {
            add(1, m.fromSlot(), 0);
        } else if (message instanceof Message.Promise m) {
            add(2, m.fromSlot(), m.nextSlot());
            addEntries(m.accepted());
            add(m.snapshotSlot());
        } else if (message instanceof Message.Nack m) {
            add(3);
            addBallot(m.rejected());
        } else if (message instanceof Message.Accept m) {
            add(4, m.leaderCommit(), 0);
            addEntries(m.entries());
        } else if (message instanceof Message.Accepted m) {
            add(5, Arrays.hashCode(m.slots()), m.appliedSlot());
        } else if (message instanceof Message.Heartbeat m) {
            add(6, m.leaderCommit(), 0);
        } else if (message instanceof Message.HeartbeatReply m) {
            add(7, m.appliedSlot(), 0);
        } else if (message instanceof Message.InstallSnapshot m) {
            add(8, m.lastIncludedSlot(), m.offset());
            add(m.totalBytes(), Arrays.hashCode(m.chunk()), 0);
        } else if (message instanceof Message.SnapshotRequest m) {
            add(9, m.lastIncludedSlot(), m.offset());
        } else if (message instanceof Message.ShardRequest m) {
            add(10, m.slot(), m.wantFull() ? 1 : 0);
        } else if (message instanceof Message.ShardReply m) {
            add(11, m.snapshotSlot(), m.entry() == null ? 0 : 1);
            if (m.entry() != null) {
                addEntries(List.of(m.entry()));
            }
        } else if (message instanceof Message.Lease m) {
            add(12 + m.kind().ordinal(), m.seq(), m.holders());
            add(m.slotLow(), m.slotHigh(), 0);
        }
    }
}
