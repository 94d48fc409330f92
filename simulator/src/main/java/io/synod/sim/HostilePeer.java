package io.synod.sim;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.Replica;
import io.synod.protocol.KvCommand;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * An attacker on the peer network that can claim to be any node (no peer authentication): during the
 * fault phase it sends huge-ballot Prepares and forged Accepts, the two attacks the replica's defence in
 * depth refuses (docs/security.md, "Defence in depth in the replica"). It is active in runs with network
 * faults and in the defence's negative controls, and draws from a random stream of its own.
 * <ul>
 *   <li>A Prepare whose epoch runs far beyond every epoch the oracle issued: accepted, it would be promised
 *       durably and no later leader could win (the {@link Mutation#NO_EPOCH_BOUND} control wedges).</li>
 *   <li>An Accept in the target's promised ballot, claiming that ballot's leader, that offers another value
 *       for a slot the target holds as chosen, with a commit point covering it: refused and counted.</li>
 *   <li>Only under {@link Mutation#NO_DIVERGENCE_CHECK}: an Accept writing the next slot and claiming it
 *       committed in the same message; without the check the target applies the forged value (a slot
 *       conflict). With the check the message commits nothing, but a forged value stays accepted until the
 *       leader's own Accept replaces it, so a later commit point could still apply it if that Accept is lost:
 *       only peer authentication closes that, so the real protocol's runs do not send it.</li>
 * </ul>
 */
final class HostilePeer {
    /** A client id no simulated client uses. */
    private static final long CLIENT_ID = 0x4057_11E0L;
    private static final long HUGE_EPOCH = 1L << 62;

    private final Simulation sim;
    private final SimRandom random;
    private final boolean active;
    private final boolean writesNextSlot;
    private long sequence;

    HostilePeer(Simulation sim, SimConfig config) {
        this.sim = sim;
        this.random = SimRandom.stream(config.seed(), "hostile-peer");
        this.writesNextSlot = config.mutation() == Mutation.NO_DIVERGENCE_CHECK;
        this.active = config.faults().network() || config.mutation() == Mutation.NO_EPOCH_BOUND || writesNextSlot;
    }

    void start() {
        if (active) {
            scheduleNext();
        }
    }

    private void scheduleNext() {
        sim.queue.after(random.uniform(5 * SimTiming.MILLIS, 40 * SimTiming.MILLIS), () -> {
            if (sim.phase != Simulation.Phase.FAULTS) {
                return; // Only while faults run: the liveness phase must show that the group recovered.
            }
            attack();
            scheduleNext();
        });
    }

    private void attack() {
        int target = random.nextInt(sim.nodes.length);
        SimNode node = sim.nodes[target];
        if (!node.isUp() || node.pausedUntilNanos > sim.queue.now()) {
            // A paused node would take the message later, maybe after a restart lowered its commit point, and
            // the "chosen slot" Accept would become the write-ahead one the real protocol's runs leave out.
            return;
        }
        Replica replica = node.replica;
        int claimed = (target + 1 + random.nextInt(sim.nodes.length - 1)) % sim.nodes.length;
        int kind = random.nextInt(writesNextSlot ? 3 : 2);
        if (kind == 0) {
            long epoch = random.chance(0.5) ? HUGE_EPOCH : sim.oracle.issuedEpoch() + 1000 + random.nextInt(1000);
            sim.inputs.deliver(new Message.Prepare(claimed, target, new Ballot(epoch, claimed), 1));
            return;
        }
        Ballot ballot = replica.promised();
        if (ballot.nodeId() < 0 || ballot.nodeId() == target) {
            return; // Nothing promised yet, or the target leads: there is no leader to impersonate.
        }
        long slot = kind == 1 ? replica.commitSlot() : replica.lastSlot() + 1;
        if (slot <= replica.snapshotSlot() || slot < 1) {
            return;
        }
        Entry forged = new Entry(slot, ballot, forgedCommand());
        sim.inputs.deliver(new Message.Accept(ballot.nodeId(), target, ballot, List.of(forged), slot));
    }

    private Command forgedCommand() {
        byte[] value = ("FORGED-" + sequence).getBytes(StandardCharsets.UTF_8);
        return new Command(CLIENT_ID, ++sequence, new KvCommand.Put("hostile/forged", value).encode());
    }
}
