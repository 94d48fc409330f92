package io.synod.server.state;

import static io.synod.server.state.RocksKeys.*;

import io.synod.core.kv.KvCommand;
import io.synod.core.kv.KvResult;
import io.synod.core.store.StoreBatch;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The read-only commands of {@link RocksKvStateMachine} (get, versioned get, list read, scan) over its applied view. */
final class RocksReads {
    private RocksReads() {}

    static KvResult query(RocksKvStateMachine m, KvCommand command) {
        String key = command.key();
        if (command instanceof KvCommand.Scan scan) {
            return scan(m, scan);
        }
        if (command instanceof KvCommand.Get || command instanceof KvCommand.GetVersioned) {
            if (m.get(key(LIST, key)) != null) {
                return new KvResult.Error("key " + key + " holds a list, not a value");
            }
            byte[] stored = m.get(key(VALUE, key));
            byte[] value = stored == null ? null : valueOf(stored);
            return command instanceof KvCommand.Get ? new KvResult.Value(value)
                    : new KvResult.Versioned(value, stored == null ? 0 : versionOf(stored));
        }
        if (m.get(key(VALUE, key)) != null) {
            return new KvResult.Error("key " + key + " holds a value, not a list");
        }
        byte[] list = m.get(key(LIST, key));
        long[] elements = new long[list == null ? 0 : list.length / 8];
        for (int i = 0; i < elements.length; i++) {
            elements[i] = ByteBuffer.wrap(list).getLong(i * 8);
        }
        return new KvResult.ListValue(elements);
    }

    /** Value keys in the scan's range in byte order (RocksDB's bytewise order), bounded as {@link KvCommand.Scan} says. */
    private static KvResult scan(RocksKvStateMachine m, KvCommand.Scan scan) {
        // A scan iterates RocksDB itself, so it must see what this pass staged: write the staged
        // prefix first. Everything staged belongs to slots already applied, together with their
        // applied slot and sessions, so RocksDB still only ever shows a whole prefix of the applied state.
        m.commitApplied();
        List<KvResult.Entry> out = new ArrayList<>();
        byte[] end = scan.end().isEmpty() ? StoreBatch.prefixEnd(new byte[] {VALUE}) : key(VALUE, scan.end());
        long[] bytes = {0};
        boolean[] more = {false};
        m.store().scan(key(VALUE, scan.start()), end, (k, stored) -> {
            long size = (k.length - 1) + (stored.length - 8L);
            if (out.size() == scan.limit() || (!out.isEmpty() && bytes[0] + size > KvCommand.MAX_SCAN_REPLY_BYTES)) {
                more[0] = true;
                return false;
            }
            out.add(new KvResult.Entry(new String(k, 1, k.length - 1, StandardCharsets.UTF_8), valueOf(stored), versionOf(stored)));
            bytes[0] += size;
            return true;
        });
        return new KvResult.Entries(out, more[0]);
    }
}
