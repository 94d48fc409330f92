package io.synod.engine;

import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.Role;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvResult;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Client commands waiting for their answer, keyed by (client id, sequence): the replica's
 * {@link ClientReply} names the command, not the connection, so the driver keeps who asked and how
 * (the path that will serve it, whether it is a read, for a quorum-lease read a follower refused its
 * key's holders). Bounded by {@code max}. A refused holder read may wait instead of being answered
 * ({@link HolderReadWait}). Replies leave only through the Ready, so never before the fsync that covers
 * their entry (core's ReadyLoop).
 */
final class Waiters {
    /**
     * {@code served}: the response's path ({@code ClientFrame.Response.SERVED_*}); {@code read}: a read-only
     * command; {@code follower}: answered under the lease by this replica as a follower (a quorum-lease holder);
     * {@code holders}: for a read a quorum-lease follower refused, its key's lease holders (the NOT_LEADER
     * answer's result, so the client learns where the key can be read), else -1; {@code input}: for such a
     * read, the request, asked again if it waits ({@link HolderReadWait}), else null.
     */
    record Waiter(long requestId, Responder responder, long receivedNanos, int served, boolean read,
            boolean follower, long holders, DriverInput.Client input) {}

    private final int group;
    private final int max;
    private final DriverMetrics metrics;
    private final Map<Long, Map<Long, List<Waiter>>> byClient = new HashMap<>();
    private int count;

    Waiters(int group, int max, DriverMetrics metrics) {
        this.group = group;
        this.max = max;
        this.metrics = metrics;
    }

    boolean full() {
        return count >= max;
    }

    int count() {
        return count;
    }

    void add(long clientId, long sequence, Waiter waiter) {
        byClient.computeIfAbsent(clientId, k -> new HashMap<>()).computeIfAbsent(sequence, k -> new ArrayList<>(1))
                .add(waiter);
        count++;
    }

    /**
     * The replica answered (clientId, sequence): every waiter of it is answered, except a refused holder
     * read that {@code holderWait} keeps to ask again after this pass.
     */
    void reply(ClientReply reply, HolderReadWait<DriverInput.Client> holderWait, int self, Role role, long nowNanos) {
        Map<Long, List<Waiter>> bySequence = byClient.get(reply.clientId());
        List<Waiter> list = bySequence == null ? null : bySequence.remove(reply.sequence());
        if (list == null) {
            return;
        }
        if (bySequence.isEmpty()) {
            byClient.remove(reply.clientId());
        }
        for (Waiter w : list) {
            count--;
            if (reply.status() == ClientReply.Status.NOT_LEADER && w.input() != null
                    && holderWait.park(w.input(), w.holders(), self, role, w.receivedNanos(), nowNanos)) {
                metrics.holderReadWait();
                continue; // Asked again after this pass (its pending write may commit meanwhile).
            }
            if (reply.status() == ClientReply.Status.OK) {
                metrics.commitLatency(nowNanos - w.receivedNanos());
                if (w.read()) {
                    metrics.read(w.served() != ClientFrame.SERVED_LEASE ? DriverMetrics.ReadPath.LOG
                            : w.follower() ? DriverMetrics.ReadPath.LEASE_FOLLOWER : DriverMetrics.ReadPath.LEASE_LEADER);
                }
            }
            byte[] result = reply.result();
            if (reply.status() == ClientReply.Status.NOT_LEADER && w.holders() >= 0 && result.length == 0) {
                result = ByteBuffer.allocate(Long.BYTES).putLong(w.holders()).array();
            }
            w.responder().respond(new ClientFrame.Response(w.requestId(), group, reply.status().ordinal(),
                    reply.slot(), reply.leaderHint(), result, w.served()));
        }
    }

    /**
     * The negative control {@link DriverControls.Bug#REPLY_BEFORE_FSYNC}: the writes among {@code written} (entries a
     * leader hands to its disk) are answered OK now, before the fsync that covers them and before any quorum.
     */
    void answerWritten(List<Entry> written, int self, long nowNanos) {
        for (Entry entry : written) {
            Command command = entry.command();
            Map<Long, List<Waiter>> bySequence = command.isNoop() ? null : byClient.get(command.clientId());
            List<Waiter> list = bySequence == null ? null : bySequence.get(command.sequence());
            if (list == null || list.stream().anyMatch(Waiter::read)) {
                continue;
            }
            reply(new ClientReply(command.clientId(), command.sequence(), ClientReply.Status.OK, entry.slot(),
                    new KvResult.Done().encode(), self), null, self, Role.LEADER, nowNanos);
        }
    }

    /** The group failed: every waiter is told there is no serving group here. */
    void failAll() {
        for (Map<Long, List<Waiter>> bySequence : byClient.values()) {
            for (List<Waiter> list : bySequence.values()) {
                for (Waiter w : list) {
                    w.responder().respond(new ClientFrame.Response(w.requestId(), group,
                            ClientFrame.STATUS_NO_GROUP, 0, -1, new byte[0]));
                }
            }
        }
        byClient.clear();
        count = 0;
    }
}
