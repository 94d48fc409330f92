package io.synod.bench.jmh;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.Message;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientFrameCodec;
import io.synod.protocol.KvCommand;
import io.synod.server.wire.MalformedInputException;
import io.synod.server.wire.WireCodec;
import io.synod.server.wire.WireFrame;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The server's wire codec on its two hottest frames: a peer Accept carrying a batch of entries
 * (leader to follower, once per batch and follower) and a client command (once per request).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class WireCodecBenchmark {
    /** Entries per Accept. */
    @Param({"1", "64"})
    public int entries;

    /** Bytes of each entry's value. */
    @Param({"128", "1024"})
    public int valueBytes;

    private WireFrame accept;
    private byte[] acceptBytes;
    private ClientFrame command;
    private byte[] commandBytes;

    @Setup
    public void setup() {
        List<Entry> batch = new ArrayList<>();
        Ballot ballot = new Ballot(7, 0);
        for (int i = 0; i < entries; i++) {
            byte[] payload = new KvCommand.Put("key-" + i, new byte[valueBytes]).encode();
            batch.add(new Entry(1000 + i, ballot, new Command(42, 1 + i, payload)));
        }
        accept = new WireFrame.PeerMessage(3, new Message.Accept(0, 1, ballot, batch, 999));
        acceptBytes = WireCodec.encode(accept);
        command = new ClientFrame.Command(5, 42, 9, new KvCommand.Put("key", new byte[valueBytes]).encode());
        commandBytes = ClientFrameCodec.encode(command);
    }

    @Benchmark
    public byte[] encodeAccept() {
        return WireCodec.encode(accept);
    }

    @Benchmark
    public WireFrame decodeAccept() throws MalformedInputException {
        return WireCodec.decode(acceptBytes);
    }

    @Benchmark
    public byte[] encodeClientCommand() {
        return ClientFrameCodec.encode(command);
    }

    @Benchmark
    public ClientFrame decodeClientCommand() {
        return ClientFrameCodec.decode(commandBytes);
    }
}
