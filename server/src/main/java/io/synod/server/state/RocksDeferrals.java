package io.synod.server.state;

import io.synod.core.kv.KvDeferral;
import io.synod.core.paxos.CodedValue;
import io.synod.core.paxos.SnapshotSource;
import io.synod.protocol.KvCommand;
import io.synod.server.wire.ByteReader;
import io.synod.server.wire.ByteWriter;
import io.synod.server.wire.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * The unresolved keys of {@link RocksKvStateMachine} (deferred follower rebuild, docs/erasure.md): value keys
 * whose {@code Put} was applied from its deferral header, without the value's bytes. Each is kept in RocksDB
 * under {@code 0 'U' key} as {@code [slot u64][payload length i32][payload CRC32C i32][header]}, written in the
 * same batch as the data change, so a restart keeps it; this class mirrors the applied view (RocksDB plus what
 * is staged) in memory, so the question asked before every applied command costs no RocksDB read.
 *
 * <p>Also the header format: a header is the {@code Put} (or {@code AppendNote}) payload without its value
 * bytes: tag, key length (u16), key, [element i64], value length (i32). Parsed here from the bytes (the same
 * checks as core's {@code KvStateMachine}), not trusted.
 */
final class RocksDeferrals {
    /** {@code 0 'U' key} -> unresolved record. Not a data or session-table key: never in a snapshot. */
    static final byte[] UNRESOLVED_PREFIX = {0, 'U'};

    private static final byte[] EMPTY = new byte[0];

    /** One unresolved key: the slot of its deferred write, the header, and the whole payload's length and CRC32C. */
    record Deferred(long slot, byte[] header, int length, int checksum) {}

    private final TreeMap<String, Deferred> byKey = new TreeMap<>();

    boolean isEmpty() {
        return byKey.isEmpty();
    }

    int size() {
        return byKey.size();
    }

    Deferred get(String key) {
        return byKey.get(key);
    }

    Map<String, Deferred> all() {
        return byKey;
    }

    /** Records {@code key} as unresolved at {@code d.slot()}, staged through {@code machine}. */
    void put(RocksKvStateMachine machine, String key, Deferred d) {
        byKey.put(key, d);
        machine.stage(unresolvedKey(key), encode(d));
    }

    /** Drops {@code key}'s unresolved record (overwritten, deleted, or resolved), staged through {@code machine}. */
    void drop(RocksKvStateMachine machine, String key) {
        if (byKey.remove(key) != null) {
            machine.stage(unresolvedKey(key), null);
        }
    }

    /** Forgets everything in memory (the database was replaced; {@link #load} reads what the new one holds). */
    void clear() {
        byKey.clear();
    }

    /** Every slot holding an unresolved key, ascending, distinct. */
    long[] slots() {
        return KvDeferral.allSlots(byKey, Deferred::slot);
    }

    /** The unresolved slots {@code payload} reads: core's rule ({@link KvDeferral#slotsRead}); only value keys are here. */
    long[] slotsFor(byte[] payload) {
        return KvDeferral.slotsRead(payload, byKey, Deferred::slot, key -> true);
    }

    /** Loads the records RocksDB holds (after opening or swapping in a database). */
    void load(RocksKvStateMachine machine) {
        byKey.clear();
        machine.store().scanPrefix(UNRESOLVED_PREFIX, (k, value) -> {
            String key = new String(k, UNRESOLVED_PREFIX.length, k.length - UNRESOLVED_PREFIX.length, StandardCharsets.UTF_8);
            try {
                byKey.put(key, decode(value));
            } catch (MalformedInputException e) {
                throw new IllegalStateException("RocksDB holds a bad unresolved-key record for key " + key + ": "
                        + e.getMessage(), e);
            }
            return true;
        });
    }

    /** {@link RocksKvStateMachine#resolve}: stages the rebuilt value under its key and drops the unresolved record. */
    void resolve(RocksKvStateMachine machine, long slot, byte[] payload) {
        KvCommand command;
        try {
            command = KvCommand.decode(payload);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("the value rebuilt for slot " + slot + " is not a kv command: " + e.getMessage(), e);
        }
        Deferred d = byKey.get(command.key());
        if (d == null || d.slot() != slot) {
            return; // Overwritten or resolved since.
        }
        if (!matches(d, payload) || !(command instanceof KvCommand.Put p)) {
            throw new IllegalStateException("the value rebuilt for slot " + slot
                    + " does not match the header and checksum applied there");
        }
        byte[] valueKey = RocksKeys.key(RocksKeys.VALUE, p.key());
        byte[] stored = machine.get(valueKey);
        if (stored == null || RocksKeys.versionOf(stored) != slot) {
            throw new IllegalStateException("key " + p.key() + " is unresolved at slot " + slot + " but holds "
                    + (stored == null ? "nothing" : "version " + RocksKeys.versionOf(stored)));
        }
        machine.stage(valueKey, RocksKeys.stored(slot, p.value()));
        drop(machine, p.key());
    }

    /**
     * Whether every unresolved key's slot holds, in {@code codedBySlot}, the coded value applied there (same length
     * and CRC32C); see {@link RocksKvStateMachine#unresolvedHeldBy}.
     */
    boolean heldBy(LongFunction<CodedValue> codedBySlot) {
        for (Deferred d : byKey.values()) {
            CodedValue c = codedBySlot.apply(d.slot());
            if (c == null || c.valueLength() != d.length() || c.valueChecksum() != d.checksum()) {
                return false;
            }
        }
        return true;
    }

    /**
     * The stored value records ({@code [slot][bytes]}, or null) of {@code keys} in a peer's snapshot: a RocksDB
     * checkpoint, opened read-only, or {@link RocksKvStateMachine#snapshot()} bytes.
     */
    static Map<String, byte[]> storedIn(SnapshotSource snapshot, List<String> keys) {
        Map<String, byte[]> found = new TreeMap<>();
        if (snapshot instanceof CheckpointSource checkpoint) {
            try (Options readOptions = new Options(); RocksDB peer = RocksDB.openReadOnly(readOptions, checkpoint.dir().toString())) {
                for (String key : keys) {
                    found.put(key, peer.get(RocksKeys.key(RocksKeys.VALUE, key)));
                }
            } catch (RocksDBException e) {
                throw new IllegalStateException("cannot read peer checkpoint " + checkpoint.dir() + ": " + e.getMessage(), e);
            }
        } else {
            TreeMap<byte[], byte[]> pairs = RocksSnapshotFormat.parse(snapshot.readAll());
            for (String key : keys) {
                found.put(key, pairs.get(RocksKeys.key(RocksKeys.VALUE, key)));
            }
        }
        return found;
    }

    static byte[] unresolvedKey(String key) {
        return RocksKeys.prefixed(UNRESOLVED_PREFIX, key.getBytes(StandardCharsets.UTF_8));
    }

    static boolean isUnresolvedKey(byte[] k) {
        return RocksKeys.startsWith(k, UNRESOLVED_PREFIX);
    }

    private static byte[] encode(Deferred d) {
        return new ByteWriter(20 + d.header().length).i64(d.slot()).i32(d.length()).i32(d.checksum()).bytes(d.header())
                .toByteArray();
    }

    private static Deferred decode(byte[] record) throws MalformedInputException {
        ByteReader r = new ByteReader(record);
        long slot = r.i64("unresolved slot");
        int length = r.i32("unresolved payload length");
        int checksum = r.i32("unresolved payload checksum");
        byte[] header = r.bytes("unresolved header");
        r.expectEnd("unresolved-key record");
        if (slot <= 0 || header.length >= length) {
            throw new MalformedInputException("unresolved-key record has slot " + slot + ", header of " + header.length
                    + " bytes, payload of " + length + " bytes");
        }
        return new Deferred(slot, header, length, checksum);
    }

    /** Whether {@code payload} is the command recorded as {@code d}: same length, CRC32C, and header prefix. */
    static boolean matches(Deferred d, byte[] payload) {
        return payload.length == d.length() && checksum(payload) == d.checksum()
                && Arrays.equals(d.header(), 0, d.header().length, payload, 0, d.header().length);
    }

    /** Whether a value taken from a snapshot is the one {@code d} was written with (header plus value: length, CRC32C). */
    static boolean matchesValue(Deferred d, byte[] value) {
        return d.header().length + (long) value.length == d.length()
                && KvDeferral.checksum(d.header(), value) == d.checksum();
    }

    private static int checksum(byte[] payload) {
        return KvDeferral.checksum(payload, EMPTY);
    }
}
