package io.synod.engine;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Coding;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.Replica;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The admin path for coding changes on one group (docs/erasure.md, "The admin path"): a
 * {@link ClientFrame.CodingChange} is proposed by the group's leader ({@link Replica#proposeCodingChangeAt}) and
 * answered once the entry applied at its slot is that change in the ballot it was proposed in (OK, with the slot
 * and the coding now in force); if another value was applied there, or this replica jumped past the slot by a
 * snapshot, the answer is UNKNOWN (the request may be sent again: a change sets F, X and the threshold, so doing
 * it twice is harmless). Refusals: NOT_LEADER with the hint on a replica that does not lead, REJECTED naming the
 * RS-Paxos rule broken or saying the group runs without coding, BUSY past {@link #MAX_PENDING}. Touched only by
 * the group's driver.
 */
final class CodingChanges {
    /** Changes waiting for their slot to apply, at most (each is one admin request). */
    static final int MAX_PENDING = 64;

    private record Pending(long requestId, Responder responder, Ballot ballot, String coding) {}

    private final int group;
    private final TreeMap<Long, List<Pending>> bySlot = new TreeMap<>();
    private int pending;

    CodingChanges(int group) {
        this.group = group;
    }

    /** Proposes {@code change} if this replica leads and the rules allow it; otherwise answers at once. */
    void propose(ClientFrame.CodingChange change, Responder responder, Replica replica, boolean serving) {
        if (!serving) {
            respond(responder, change.requestId(), ClientReply.Status.NOT_LEADER, 0, replica.leaderHint(), "");
            return;
        }
        if (pending >= MAX_PENDING) {
            respond(responder, change.requestId(), ClientReply.Status.BUSY, 0, replica.leaderHint(),
                    pending + " coding changes are waiting to commit");
            return;
        }
        Coding current = replica.coding();
        if (!current.enabled()) {
            respond(responder, change.requestId(), ClientReply.Status.REJECTED, 0, replica.leaderHint(), "group " + group
                    + " runs without coding (the cluster was created with classic majorities): there is no coding to change");
            return;
        }
        int threshold = change.thresholdBytes() == 0 ? current.thresholdBytes() : change.thresholdBytes();
        long slot;
        String next;
        try {
            // The coding's N is the group's replica id space (one shard per id, rule M8), wider than its voters: F and
            // X are checked against the voters too (RS-Paxos §4: 2F < N and X <= N - 2F with N the acceptors).
            int voters = replica.membership().applied().voterCount();
            if (2 * change.failures() >= voters) {
                throw new IllegalArgumentException("coding needs 1 <= F and 2F < N, got N=" + voters + " F="
                        + change.failures() + " (N: the group's voters)");
            }
            if (change.dataShards() > voters - 2 * change.failures()) {
                throw new IllegalArgumentException("coding needs 1 <= X <= N - 2F = " + (voters - 2 * change.failures())
                        + ", got X=" + change.dataShards() + " (N: the group's " + voters + " voters)");
            }
            next = current.withChange(change.failures(), change.dataShards(), threshold).toString();
            slot = replica.proposeCodingChangeAt(change.failures(), change.dataShards(), threshold);
        } catch (IllegalArgumentException | IllegalStateException e) {
            respond(responder, change.requestId(), ClientReply.Status.REJECTED, 0, replica.leaderHint(),
                    "group " + group + ": " + e.getMessage());
            return;
        }
        if (slot < 0) {
            respond(responder, change.requestId(), ClientReply.Status.NOT_LEADER, 0, replica.leaderHint(), "");
            return;
        }
        bySlot.computeIfAbsent(slot, s -> new ArrayList<>(1))
                .add(new Pending(change.requestId(), responder, replica.ownBallot(), next));
        pending++;
    }

    /** After a Ready was taken: answers the changes whose slots it applied, and those this replica jumped past. */
    void applied(List<Entry> applied, long appliedSlot) {
        if (pending == 0) {
            return;
        }
        for (Entry entry : applied) {
            List<Pending> waiting = bySlot.remove(entry.slot());
            if (waiting == null) {
                continue;
            }
            for (Pending p : waiting) {
                pending--;
                if (Coding.isChange(entry.command()) && entry.ballot().equals(p.ballot())) {
                    respond(p.responder(), p.requestId(), ClientReply.Status.OK, entry.slot(), -1, p.coding());
                } else {
                    respond(p.responder(), p.requestId(), ClientReply.Status.UNKNOWN, 0, -1, "slot " + entry.slot()
                            + " chose another value (leadership changed): the coding change may not be in force");
                }
            }
        }
        for (Iterator<Map.Entry<Long, List<Pending>>> it = bySlot.headMap(appliedSlot, true).entrySet().iterator();
                it.hasNext();) {
            Map.Entry<Long, List<Pending>> e = it.next();
            it.remove();
            for (Pending p : e.getValue()) {
                pending--;
                respond(p.responder(), p.requestId(), ClientReply.Status.UNKNOWN, 0, -1, "slot " + e.getKey()
                        + " was installed from a snapshot: the coding change may not be in force");
            }
        }
    }

    /** The group failed: every waiting change is answered as having no serving group. */
    void failAll() {
        for (List<Pending> waiting : bySlot.values()) {
            for (Pending p : waiting) {
                p.responder().respond(new ClientFrame.Response(p.requestId(), group,
                        ClientFrame.STATUS_NO_GROUP, 0, -1, new byte[0]));
            }
        }
        bySlot.clear();
        pending = 0;
    }

    private void respond(Responder responder, long requestId, ClientReply.Status status, long slot, int hint,
            String text) {
        responder.respond(new ClientFrame.Response(requestId, group, status.ordinal(), slot, hint,
                text.getBytes(StandardCharsets.UTF_8)));
    }
}
