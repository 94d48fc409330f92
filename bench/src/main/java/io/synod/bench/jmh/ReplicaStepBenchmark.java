package io.synod.bench.jmh;

import io.synod.core.kv.KvStateMachine;
import io.synod.core.paxos.ClientRequest;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.DurableState;
import io.synod.core.paxos.LeaseHooks;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.QuorumPolicy;
import io.synod.core.paxos.Ready;
import io.synod.core.paxos.ReadyLoop;
import io.synod.core.paxos.Replica;
import io.synod.core.paxos.ReplicaConfig;
import io.synod.protocol.ClientReply;
import io.synod.protocol.ElectionEvent;
import io.synod.protocol.KvCommand;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The core replica alone, in memory: three {@link Replica}s driven by core's {@link ReadyLoop}, with
 * "fsync" a no-op and the network a FIFO queue in this thread. One operation proposes {@code batch}
 * commands at the leader and delivers messages until every one is committed, applied and answered, so
 * ops/s x batch is the protocol's own ceiling in commands per second (no I/O, no serialization).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ReplicaStepBenchmark {
    @Param({"1", "64"})
    public int batch;

    @Param({"128"})
    public int valueBytes;

    private final ArrayDeque<Message> network = new ArrayDeque<>();
    private Replica[] replicas;
    private ReadyLoop[] loops;
    private byte[] payload;
    private long sequence;
    private long answered;

    @Setup(Level.Trial)
    public void setup() {
        int size = 3;
        replicas = new Replica[size];
        loops = new ReadyLoop[size];
        ReplicaConfig config = ReplicaConfig.defaults(0, size);
        for (int i = 0; i < size; i++) {
            replicas[i] = new Replica(config.withNodeId(i), DurableState.EMPTY, new KvStateMachine(), QuorumPolicy.MAJORITY,
                    LeaseHooks.NONE, 0);
            loops[i] = new ReadyLoop(replicas[i], new Sink());
        }
        replicas[0].onElection(new ElectionEvent.Elected(1));
        settle();
        payload = new KvCommand.Put("key", new byte[valueBytes]).encode();
    }

    @Benchmark
    public long proposeAndCommit() {
        long target = answered + batch;
        // One command per client at a time (the at-most-once session table keeps one outstanding
        // sequence per client, as the SDK's lanes do): client i+1 sends its next sequence.
        sequence++;
        for (int i = 0; i < batch; i++) {
            replicas[0].propose(new ClientRequest(new Command(i + 1, sequence, payload)));
        }
        settle();
        if (answered != target) {
            throw new IllegalStateException("answered " + answered + ", expected " + target);
        }
        return answered;
    }

    private void settle() {
        for (int round = 0; round < 1_000_000; round++) {
            boolean moved = false;
            for (int i = 0; i < replicas.length; i++) {
                if (replicas[i].hasReady()) {
                    loops[i].drive();
                    moved = true;
                }
            }
            Message m = network.poll();
            if (m != null) {
                replicas[m.to()].step(m);
                moved = true;
            }
            if (!moved) {
                return;
            }
        }
        throw new IllegalStateException("replicas did not settle");
    }

    private final class Sink implements ReadyLoop.Sink {
        @Override
        public boolean persist(Ready ready) {
            return true;
        }

        @Override
        public void compactThrough(long slot) {
        }

        @Override
        public void send(Message message) {
            network.add(message);
        }

        @Override
        public void reply(ClientReply reply) {
            if (reply.status() == ClientReply.Status.OK) {
                answered++;
            }
        }

        @Override
        public void resign() {
        }
    }
}
