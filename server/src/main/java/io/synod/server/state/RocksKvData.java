package io.synod.server.state;

import static io.synod.server.state.RocksKeys.*;

import io.synod.core.kv.KvData;
import io.synod.core.store.StoreBatch;
import io.synod.protocol.KvCommand;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * {@link RocksKvStateMachine}'s value and list keys as core's {@code KvCommands} reads and writes them: values under
 * {@code 'v' + key} as {@code [version][bytes]}, lists under {@code 'l' + key} as 8-byte elements, read through the
 * machine's staged view and staged for its next batch. A write or delete also drops the key's unresolved record, a
 * delete its token and owner.
 */
final class RocksKvData implements KvData {
    private final RocksKvStateMachine machine;
    private final RocksDeferrals deferred;
    private final RocksSessionTables sessionTables;

    RocksKvData(RocksKvStateMachine machine, RocksDeferrals deferred, RocksSessionTables sessionTables) {
        this.machine = machine;
        this.deferred = deferred;
        this.sessionTables = sessionTables;
    }

    @Override
    public byte[] value(String key) {
        byte[] stored = machine.get(key(VALUE, key));
        return stored == null ? null : valueOf(stored);
    }

    @Override
    public boolean holdsValue(String key) {
        return machine.get(key(VALUE, key)) != null;
    }

    @Override
    public long version(String key) {
        byte[] stored = machine.get(key(VALUE, key));
        return stored == null ? 0 : versionOf(stored);
    }

    @Override
    public boolean holdsList(String key) {
        return machine.get(key(LIST, key)) != null;
    }

    @Override
    public long[] list(String key) {
        byte[] list = machine.get(key(LIST, key));
        long[] elements = new long[list == null ? 0 : list.length / 8];
        for (int i = 0; i < elements.length; i++) {
            elements[i] = ByteBuffer.wrap(list).getLong(i * 8);
        }
        return elements;
    }

    @Override
    public void write(String key, byte[] value, long slot) {
        machine.stage(key(VALUE, key), stored(slot, value));
        deferred.drop(machine, key);
    }

    @Override
    public void delete(String key) {
        machine.stage(key(VALUE, key), null);
        machine.stage(key(LIST, key), null);
        deferred.drop(machine, key);
        sessionTables.forget(key);
    }

    @Override
    public void append(String key, long element) {
        byte[] listKey = key(LIST, key);
        byte[] old = machine.get(listKey);
        byte[] grown = old == null ? new byte[8] : Arrays.copyOf(old, old.length + 8);
        ByteBuffer.wrap(grown).putLong(grown.length - 8, element);
        machine.stage(listKey, grown);
    }

    /**
     * Iterates RocksDB itself, so the staged changes are written first: everything staged belongs to slots already
     * applied, together with their applied slot and sessions, so RocksDB still only ever shows a whole prefix of the
     * applied state.
     */
    @Override
    public void scanValues(KvCommand.Scan scan, ValueVisitor visitor) {
        machine.commitApplied();
        byte[] end = scan.end().isEmpty() ? StoreBatch.prefixEnd(new byte[] {VALUE}) : key(VALUE, scan.end());
        machine.store().scan(key(VALUE, scan.start()), end,
                (k, stored) -> visitor.visit(new String(k, 1, k.length - 1, StandardCharsets.UTF_8), valueOf(stored), versionOf(stored)));
    }
}
