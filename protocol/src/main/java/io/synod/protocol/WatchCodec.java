package io.synod.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The bytes of a watch poll ({@link ClientFrame.WatchPoll}) and of its answer (a {@link ClientFrame.Response} result):
 * a query names a key or a prefix, the position to read from (slot, index within the slot), how many events at most,
 * and how long the server may hold the poll waiting for one; the answer is a {@link KeyChangeBatch}. Shared by the
 * server and the SDK. Decoding checks every field and fails with {@link IllegalArgumentException} naming it.
 */
public final class WatchCodec {
    /** Most events one answer carries. */
    public static final int MAX_EVENTS = 1024;
    /** Longest a server holds a poll. */
    public static final int MAX_WAIT_MILLIS = 30_000;

    private WatchCodec() {}

    /** What a watcher asks for. */
    public record Query(String key, boolean prefix, long fromSlot, int fromIndex, int limit, int waitMillis) {
        public Query {
            int bytes = key.getBytes(StandardCharsets.UTF_8).length;
            if (bytes > KvCommand.MAX_KEY_BYTES || (!prefix && bytes == 0)) {
                throw new IllegalArgumentException("watch key must be 1.." + KvCommand.MAX_KEY_BYTES
                        + " UTF-8 bytes (a prefix may be empty), got " + bytes);
            }
            if (fromSlot < 1 || fromIndex < 0) {
                throw new IllegalArgumentException("watch position must be slot >= 1, index >= 0, got " + fromSlot + "/"
                        + fromIndex);
            }
            if (limit < 1 || limit > MAX_EVENTS) {
                throw new IllegalArgumentException("watch limit must be 1.." + MAX_EVENTS + ", got " + limit);
            }
            if (waitMillis < 0 || waitMillis > MAX_WAIT_MILLIS) {
                throw new IllegalArgumentException("watch wait must be 0.." + MAX_WAIT_MILLIS + " ms, got " + waitMillis);
            }
        }
    }

    public static byte[] encode(Query q) {
        byte[] key = q.key().getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(2 + key.length + 1 + 8 + 4 + 4 + 4).putShort((short) key.length).put(key)
                .put((byte) (q.prefix() ? 1 : 0)).putLong(q.fromSlot()).putInt(q.fromIndex()).putInt(q.limit())
                .putInt(q.waitMillis()).array();
    }

    public static Query decodeQuery(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        String key = key(in);
        need(in, 1 + 8 + 4 + 4 + 4, "watch query");
        byte flag = in.get();
        if (flag != 0 && flag != 1) {
            throw new IllegalArgumentException("watch prefix flag must be 0 or 1, got " + flag);
        }
        Query q = new Query(key, flag == 1, in.getLong(), in.getInt(), in.getInt(), in.getInt());
        end(in);
        return q;
    }

    public static byte[] encode(KeyChangeBatch batch) {
        int size = 1 + 8 + 4 + 4;
        List<byte[]> keys = new ArrayList<>(batch.events().size());
        for (KeyChange e : batch.events()) {
            byte[] k = e.key().getBytes(StandardCharsets.UTF_8);
            keys.add(k);
            size += 8 + 4 + 1 + 2 + k.length;
        }
        ByteBuffer out = ByteBuffer.allocate(size).put((byte) (batch.compacted() ? 1 : 0)).putLong(batch.nextSlot())
                .putInt(batch.nextIndex()).putInt(batch.events().size());
        for (int i = 0; i < keys.size(); i++) {
            KeyChange e = batch.events().get(i);
            out.putLong(e.slot()).putInt(e.index()).put((byte) e.type().ordinal()).putShort((short) keys.get(i).length)
                    .put(keys.get(i));
        }
        return out.array();
    }

    public static KeyChangeBatch decodeBatch(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        need(in, 1 + 8 + 4 + 4, "watch batch header");
        boolean compacted = in.get() == 1;
        long nextSlot = in.getLong();
        int nextIndex = in.getInt();
        int count = in.getInt();
        if (count < 0 || count > MAX_EVENTS || (long) count * 16 > in.remaining()) {
            throw new IllegalArgumentException("watch batch event count " + count + " is invalid for " + in.remaining()
                    + " bytes");
        }
        List<KeyChange> events = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            need(in, 8 + 4 + 1, "watch event");
            long slot = in.getLong();
            int index = in.getInt();
            int type = in.get();
            if (type < 0 || type >= KeyChange.Type.values().length) {
                throw new IllegalArgumentException("watch event type " + type + " is unknown");
            }
            events.add(new KeyChange(slot, index, key(in), KeyChange.Type.values()[type]));
        }
        end(in);
        return new KeyChangeBatch(List.copyOf(events), nextSlot, nextIndex, compacted);
    }

    private static String key(ByteBuffer in) {
        need(in, 2, "watch key length");
        int length = Short.toUnsignedInt(in.getShort());
        need(in, length, "watch key");
        byte[] k = new byte[length];
        in.get(k);
        return new String(k, StandardCharsets.UTF_8);
    }

    private static void need(ByteBuffer in, int bytes, String what) {
        if (in.remaining() < bytes) {
            throw new IllegalArgumentException(what + " needs " + bytes + " bytes, only " + in.remaining() + " left");
        }
    }

    private static void end(ByteBuffer in) {
        if (in.hasRemaining()) {
            throw new IllegalArgumentException("watch bytes have " + in.remaining() + " trailing bytes");
        }
    }
}
