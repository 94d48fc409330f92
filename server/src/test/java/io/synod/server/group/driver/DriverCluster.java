package io.synod.server.group.driver;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.synod.core.kv.KvStateMachine;
import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.DurableState;
import io.synod.core.paxos.Ready;
import io.synod.core.paxos.ReplicaConfig;
import io.synod.core.paxos.Role;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ElectionEvent;
import io.synod.protocol.RoutedCommand;
import io.synod.server.wire.WireFrame;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Group drivers under a fake clock, with an in-memory state machine and a runner written in a few
 * lines: every output is recorded in one trace (so a test can check what left before what), peer
 * messages wait in a queue until {@link #deliver()}, and a Ready's persistence completes only when the
 * test says so ({@link #pass} with {@code fsync} true, or {@link #completePersist}).
 */
final class DriverCluster {
    /** One driver with the outputs it produced. */
    final class Node implements DriverOutput {
        final int id;
        final GroupDriver driver;
        final KvStateMachine machine = new KvStateMachine();
        final List<ClientFrame.Response> replies = new ArrayList<>();
        /** While set, a pass leaves its persist request outstanding (the test completes it). */
        boolean diskStalled;
        int joins;
        int repairsFinished;
        int leaves;
        int commits;

        Node(int id, int n, UnaryOperator<GroupDriverConfig> tune, Ballot repairAbove) {
            this.id = id;
            GroupDriverConfig config = tune.apply(GroupDriverConfig.of(0, ReplicaConfig.defaults(id, n), 1024,
                    new GroupMetrics(new SimpleMeterRegistry(), 0)));
            KvState kv = KvState.of(List::of, machine.watchLog());
            this.driver = new GroupDriver(config, new GroupDriver.Recovered(DurableState.EMPTY, repairAbove, 0), machine, kv,
                    this, now);
            driver.start();
        }

        Responder responder() {
            return r -> {
                trace.add(id + " reply " + r.requestId() + " status " + r.status());
                replies.add(r);
            };
        }

        @Override
        public void send(WireFrame.PeerMessage message) {
            trace.add(id + " send " + message.message().getClass().getSimpleName());
            network.add(message);
        }

        @Override
        public void compactThrough(long slot) {}

        @Override
        public void commitApplied() {
            commits++;
        }

        @Override
        public void finishRepair() {
            repairsFinished++;
        }

        @Override
        public void joinElection() {
            joins++;
        }

        @Override
        public void resign() {}

        @Override
        public void leaveElection() {
            leaves++;
        }

        void step(DriverInput input) {
            driver.step(input, now);
        }

        /** A client command at the fake time now. */
        void command(long requestId, byte[] payload, int flags) {
            step(new DriverInput.Client(new ClientFrame.Command(requestId, 7, requestId, payload, flags),
                    RoutedCommand.of(payload).readOnly(), responder(), now));
        }

        /** A pass; with {@code fsync}, every Ready it must persist is made durable at once (the runner's loop). */
        void pass(boolean fsync) {
            driver.ready(now);
            while (fsync && !diskStalled && driver.persistRequest() != null) {
                completePersist();
            }
        }

        void completePersist() {
            Ready ready = driver.persistRequest();
            trace.add(id + " fsync " + ready.entries().size());
            driver.persisted(ready, now);
        }

        Role role() {
            return driver.replica().role();
        }
    }

    final List<String> trace = new ArrayList<>();
    final ArrayDeque<WireFrame.PeerMessage> network = new ArrayDeque<>();
    final Node[] nodes;
    long now = 1_000_000_000L;

    DriverCluster(int n, UnaryOperator<GroupDriverConfig> tune) {
        this(n, tune, -1);
    }

    /** Node {@code repairing} (if >= 0) starts from a damaged log (lost entries of ballots up to ZERO: every leader's is higher). */
    DriverCluster(int n, UnaryOperator<GroupDriverConfig> tune, int repairing) {
        nodes = new Node[n];
        for (int i = 0; i < n; i++) {
            nodes[i] = new Node(i, n, tune, i == repairing ? Ballot.ZERO : null);
        }
    }

    DriverCluster(int n) {
        this(n, c -> c);
    }

    /** Delivers every queued peer message, each followed by a pass with fsync at its receiver, until none is left. */
    void deliver() {
        for (int i = 0; i < 10_000 && !network.isEmpty(); i++) {
            WireFrame.PeerMessage m = network.poll();
            Node to = nodes[m.message().to()];
            to.step(new DriverInput.Peer(m.message()));
            to.pass(true);
        }
        if (!network.isEmpty()) {
            throw new IllegalStateException("messages keep coming: " + network.size());
        }
    }

    /** Node 0 is elected (the others told it leads), and the cluster settles. */
    Node electFirst() {
        nodes[0].driver.onElection(new ElectionEvent.Elected(1), now);
        for (int i = 1; i < nodes.length; i++) {
            nodes[i].driver.onElection(new ElectionEvent.LeaderIs(0), now);
            nodes[i].pass(true);
        }
        nodes[0].pass(true);
        deliver();
        return nodes[0];
    }

    /** The clock moves on by {@code nanos}; every node ticks and passes, and the messages are delivered. */
    void advance(long nanos) {
        now += nanos;
        for (Node node : nodes) {
            node.driver.tick(now);
            node.pass(true);
        }
        deliver();
    }
}
