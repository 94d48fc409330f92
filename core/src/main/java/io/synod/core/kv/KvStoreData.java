package io.synod.core.kv;

import static io.synod.core.kv.KvLayout.*;

import io.synod.core.store.StoreBatch;
import io.synod.protocol.KvCommand;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The value and list keys of {@link KvStateMachine} as {@link KvCommands} reads and writes them, through the
 * machine's {@link KvView} ({@link KvLayout}: values as {@code [version][bytes]}, lists as 8-byte elements). A write
 * or delete also drops the key's unresolved record; a delete its token and owner and its note.
 */
final class KvStoreData implements KvData {
    private final KvView view;
    private final KvDeferrals deferred;
    private final KvSessions sessions;

    KvStoreData(KvView view, KvDeferrals deferred, KvSessions sessions) {
        this.view = view;
        this.deferred = deferred;
        this.sessions = sessions;
    }

    @Override
    public byte[] value(String key) {
        byte[] stored = view.get(key(VALUE, key));
        return stored == null ? null : valueOf(stored);
    }

    @Override
    public boolean holdsValue(String key) {
        return view.get(key(VALUE, key)) != null;
    }

    @Override
    public long version(String key) {
        byte[] stored = view.get(key(VALUE, key));
        return stored == null ? 0 : versionOf(stored);
    }

    @Override
    public boolean holdsList(String key) {
        return view.get(key(LIST, key)) != null;
    }

    @Override
    public long[] list(String key) {
        byte[] list = view.get(key(LIST, key));
        long[] elements = new long[list == null ? 0 : list.length / 8];
        ByteBuffer in = list == null ? null : ByteBuffer.wrap(list);
        for (int i = 0; i < elements.length; i++) {
            elements[i] = in.getLong(i * 8);
        }
        return elements;
    }

    @Override
    public void write(String key, byte[] value, long slot) {
        view.stage(key(VALUE, key), stored(slot, value));
        deferred.drop(key);
    }

    @Override
    public void delete(String key) {
        view.stage(key(VALUE, key), null);
        view.stage(key(LIST, key), null);
        if (deferred.keepsNotes()) {
            view.stage(prefixed(NOTE_PREFIX, key), null);
        }
        deferred.drop(key);
        sessions.forget(key);
    }

    @Override
    public void append(String key, long element) {
        byte[] listKey = key(LIST, key);
        byte[] old = view.get(listKey);
        byte[] grown = old == null ? new byte[8] : Arrays.copyOf(old, old.length + 8);
        ByteBuffer.wrap(grown).putLong(grown.length - 8, element);
        view.stage(listKey, grown);
    }

    /** The store's bytewise order is UTF-8 byte order: the order of the shard map. */
    @Override
    public void scanValues(KvCommand.Scan scan, ValueVisitor visitor) {
        byte[] end = scan.end().isEmpty() ? StoreBatch.prefixEnd(new byte[] {VALUE}) : key(VALUE, scan.end());
        view.scan(key(VALUE, scan.start()), end, (k, stored) -> visitor.visit(userKey(k, 1), valueOf(stored), versionOf(stored)));
    }
}
