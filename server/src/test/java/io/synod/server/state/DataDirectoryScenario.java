package io.synod.server.state;

import io.synod.core.kv.KvDeferrals;
import io.synod.core.paxos.StateMachine.SessionWrite;
import io.synod.core.paxos.StateMachine;
import io.synod.protocol.KvCommand;
import io.synod.protocol.SessionCommand;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A fixed history that touches every kind of durable state of the group's RocksDB: values and their versions,
 * lists, a delete, both compare-and-sets, two sessions (one kept alive), an ephemeral key, sequential keys under one
 * parent (counter 2), client-session records (one evicted), a coding change and a {@code Put} applied deferred whose
 * bytes are still unresolved. {@link #play} applies it to any state machine, so the same history written by the
 * server's RocksDB machine and by core's in-memory machine can be compared key by key.
 *
 * <p>{@code src/test/resources/rocksdb-fixture/v1} is this history written by the RocksDB machine of the first
 * layout ({@code RocksKvStateMachine} with its own command logic), closed after its last batch; see
 * {@link DataDirectoryCompatibilityTest}.
 */
final class DataDirectoryScenario {
    private DataDirectoryScenario() {}

    /** The slot of the last command (the applied slot the directory holds). */
    static final long LAST_SLOT = 19;
    /** The slot at which the coding change is applied (opaque parameters: the machine stores them as given). */
    static final long CODING_SLOT = 17;
    static final byte[] CODING = {0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 4, 0};
    /** The slot of the deferred {@code Put} of {@link #DEFERRED_KEY}. */
    static final long DEFERRED_SLOT = 18;
    static final String DEFERRED_KEY = "coded/big";
    /** Every key the history names (value keys, list keys, ephemeral and sequential keys, deleted ones). */
    static final List<String> KEYS = List.of("a", "b", "c", "list/1", "list/2", "/locks/e", "/q/n-0000000000",
            "/q/n-0000000001", "/q/n-0000000002", DEFERRED_KEY);
    static final long FIRST_SESSION = 6;
    static final long SECOND_SESSION = 10;

    /** The deferred {@code Put}'s whole payload (what the rebuild later supplies). */
    static byte[] deferredPayload() {
        byte[] value = new byte[300];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) (i * 7 + 1);
        }
        return new KvCommand.Put(DEFERRED_KEY, value).encode();
    }

    /** The client-session records the history writes: {clientId, sequence, slot}; client 101's record is evicted. */
    static List<long[]> clientSessions() {
        return List.of(new long[] {102, 1, 3}, new long[] {103, 7, 12}, new long[] {104, 2, 16});
    }

    /** Applies the history to {@code m}, slot 1 to {@link #LAST_SLOT}; returns each slot's result. */
    static List<byte[]> play(StateMachine m) {
        List<byte[]> results = new ArrayList<>();
        results.add(m.apply(1, new KvCommand.Put("a", bytes("1")).encode(), new SessionWrite(101, 1, 0)));
        results.add(m.apply(2, new KvCommand.Put("b", bytes("2")).encode()));
        results.add(m.apply(3, new KvCommand.Put("a", bytes("3")).encode(), new SessionWrite(102, 1, 101)));
        results.add(m.apply(4, new KvCommand.Append("list/1", 5).encode()));
        results.add(m.apply(5, new KvCommand.Append("list/1", -6).encode()));
        results.add(m.apply(6, new SessionCommand.Grant(10_000).encode()));
        results.add(m.apply(7, new SessionCommand.Create("/locks/e", bytes("x"), FIRST_SESSION, false).encode()));
        results.add(m.apply(8, new SessionCommand.Create("/q/n-", bytes("q0"), 0, true).encode()));
        results.add(m.apply(9, new SessionCommand.Create("/q/n-", bytes("q1"), FIRST_SESSION, true).encode()));
        results.add(m.apply(10, new SessionCommand.Grant(5_000).encode()));
        results.add(m.apply(11, new SessionCommand.KeepAlive(FIRST_SESSION).encode()));
        results.add(m.apply(12, new KvCommand.Delete("b").encode(), new SessionWrite(103, 7, 0)));
        results.add(m.apply(13, new KvCommand.CasVersion("a", 3, bytes("4")).encode()));
        results.add(m.apply(14, new KvCommand.CompareAndSet("c", null, bytes("c1")).encode()));
        results.add(m.apply(15, new SessionCommand.Create("/q/n-", bytes("q2"), SECOND_SESSION, true).encode()));
        results.add(m.apply(16, new KvCommand.AppendNote("list/2", 9, bytes("note")).encode(), new SessionWrite(104, 2, 0)));
        m.applyCodingChange(CODING_SLOT, CODING.clone());
        results.add(null);
        byte[] payload = deferredPayload();
        byte[] header = m.deferralHeader(payload);
        results.add(m.applyDeferred(DEFERRED_SLOT, header, payload.length, KvDeferrals.checksum(payload, new byte[0]), null));
        results.add(m.apply(LAST_SLOT, new KvCommand.Get("a").encode()));
        return results;
    }

    /** Every read the directory must answer as the history left it: per key a versioned get, a list read and the entry. */
    static List<byte[]> reads() {
        List<byte[]> out = new ArrayList<>();
        for (String key : KEYS) {
            out.add(new KvCommand.ReadList(key).encode());
            if (!key.equals(DEFERRED_KEY)) { // Its bytes are unresolved: the replica rebuilds them before any read.
                out.add(new KvCommand.GetVersioned(key).encode());
                out.add(new SessionCommand.GetEntry(key).encode());
            }
        }
        out.add(new SessionCommand.ListPrefix("/", 100).encode());
        out.add(new SessionCommand.ListPrefix("/q/", 100).encode());
        out.add(new KvCommand.Scan("", "coded", 100).encode());
        return out;
    }

    /** Writes the history into the RocksDB directory {@code args[0]} (how the checked-in fixture was made). */
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        try (RocksKvStateMachine m = new RocksKvStateMachine(dir, dir.resolveSibling(dir.getFileName() + "-snapshots"))) {
            play(m);
        }
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String show(byte[] b) {
        return b == null ? "null" : Arrays.toString(b);
    }
}
