package io.synod.sim;

import io.synod.core.paxos.Entry;
import io.synod.core.paxos.Message;
import java.util.List;

/**
 * Bytes a seed moved between replicas and wrote to their logs, to compare coded accepts with full
 * copies (RS-Paxos, Mu et al. 2014, §5: network and disk cost). Message sizes are the simulator's
 * model of a compact binary encoding: a 32-byte header per message plus its entries
 * ({@link Entry#sizeBytes()}: 24 bytes of slot and ballot, the command, and for a coded entry 16
 * bytes of coding plus the shard it holds) or its other payload. Sent bytes count every message a
 * replica sent, including ones the network then lost or duplicated.
 *
 * @param replicationBytes  phase 2: Accept messages proposing uncommitted slots, and every Accepted
 * @param catchUpBytes      catch-up: Accept messages carrying only slots already committed
 * @param recoveryBytes     recovery reads: ShardRequest and ShardReply
 * @param otherBytes        everything else (phase 1, heartbeats, snapshots, nacks)
 * @param logBytes          bytes of log entries written to disk (every fsynced entry, all replicas)
 * @param committedWrites   distinct log slots applied with a client command (no-ops excluded)
 * @param corruptedShards   recovery-read replies whose shard the network corrupted (coded mode's fault)
 */
public record SimTraffic(long replicationBytes, long catchUpBytes, long recoveryBytes, long otherBytes, long logBytes, long committedWrites,
        long corruptedShards) {

    static final int HEADER_BYTES = 32;

    public long wireBytes() {
        return replicationBytes + catchUpBytes + recoveryBytes + otherBytes;
    }

    /** Modelled encoded size of {@code message}. */
    static long bytes(Message message) {
        if (message instanceof Message.Accept m) {
            return HEADER_BYTES + 8 + entries(m.entries());
        } else if (message instanceof Message.Accepted m) {
            return HEADER_BYTES + 8 + 8L * m.slots().length;
        } else if (message instanceof Message.Promise m) {
            return HEADER_BYTES + 24 + entries(m.accepted());
        } else if (message instanceof Message.InstallSnapshot m) {
            return HEADER_BYTES + 24 + m.chunk().length;
        } else if (message instanceof Message.ShardReply m) {
            return HEADER_BYTES + 8 + (m.entry() == null ? 0 : m.entry().sizeBytes());
        }
        return HEADER_BYTES + 16;
    }

    static long entries(List<Entry> entries) {
        long total = 0;
        for (Entry entry : entries) {
            total += entry.sizeBytes();
        }
        return total;
    }

    /** Counters while a seed runs. */
    static final class Counter {
        long replication;
        long catchUp;
        long recovery;
        long other;
        long log;
        long corrupted;

        void sent(Message message) {
            long size = bytes(message);
            if (message instanceof Message.Accept m && m.entries().stream().allMatch(e -> e.slot() <= m.leaderCommit())) {
                catchUp += size;
            } else if (message instanceof Message.Accept || message instanceof Message.Accepted) {
                replication += size;
            } else if (message instanceof Message.ShardRequest || message instanceof Message.ShardReply) {
                recovery += size;
            } else {
                other += size;
            }
        }

        SimTraffic result(long committedWrites) {
            return new SimTraffic(replication, catchUp, recovery, other, log, committedWrites, corrupted);
        }
    }
}
