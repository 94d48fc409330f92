package io.synod.core.kv;

import io.synod.core.paxos.StateMachine;
import io.synod.protocol.KvCommand;
import io.synod.protocol.SessionCommand;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
import java.util.zip.CRC32C;

/**
 * The byte-level part of deferred follower rebuild (RS-Paxos coded values, docs/erasure.md): reading
 * the uncoded header a leader puts in a coded {@code Put} or {@code AppendNote}, and the CRC32C that
 * ties a rebuilt command to the header and length applied at its slot; and which unresolved slots a
 * command reads. Shared by this package's {@link KvStateMachine} and the server's RocksDB machine, so
 * both apply the same rules.
 */
public final class KvDeferral {
    private static final byte[] EMPTY = new byte[0];

    private KvDeferral() {}

    /**
     * The deferral header of {@code payload} (see {@code StateMachine#deferralHeader}): a {@code Put} or
     * {@code AppendNote} without its value bytes, or null for any other payload (or one that does not decode).
     */
    public static byte[] header(byte[] payload) {
        KvCommand command = KvCommands.decodeData(payload);
        if (command == null) {
            return null;
        }
        int valueBytes = command instanceof KvCommand.Put p ? p.value().length
                : command instanceof KvCommand.AppendNote n ? n.note().length : 0;
        // A Put overwrites the value and its result never depends on the bytes; an AppendNote appends an
        // element (known from the header) and overwrites the note. Nothing else is applied without its bytes.
        return valueBytes == 0 ? null : Arrays.copyOf(payload, payload.length - valueBytes);
    }

    /**
     * The command a header stands for, with an empty value (only its key, tag and element are used);
     * {@link IllegalArgumentException} naming the problem if it is not a {@code Put} or {@code AppendNote}
     * header of a payload of {@code payloadLength} bytes.
     */
    public static KvCommand parseHeader(byte[] header, int payloadLength) {
        if (header.length < 3 + 4) {
            throw new IllegalArgumentException("deferral header of " + header.length + " bytes is too short");
        }
        ByteBuffer in = ByteBuffer.wrap(header);
        byte tag = in.get();
        int keyLength = Short.toUnsignedInt(in.getShort());
        int expected = 3 + keyLength + (tag == KvCommand.TAG_APPEND_NOTE ? 8 : 0) + 4;
        if ((tag != KvCommand.TAG_PUT && tag != KvCommand.TAG_APPEND_NOTE) || keyLength == 0 || header.length != expected) {
            throw new IllegalArgumentException("deferral header (tag " + tag + ", key of " + keyLength + " bytes, "
                    + header.length + " bytes) is neither a put nor an append-note header");
        }
        byte[] keyBytes = new byte[keyLength];
        in.get(keyBytes);
        String key = new String(keyBytes, StandardCharsets.UTF_8);
        long element = tag == KvCommand.TAG_APPEND_NOTE ? in.getLong() : 0;
        int valueLength = in.getInt();
        if (valueLength != payloadLength - header.length) {
            throw new IllegalArgumentException("deferral header says " + valueLength + " value bytes, the payload has "
                    + (payloadLength - header.length));
        }
        return tag == KvCommand.TAG_PUT ? new KvCommand.Put(key, EMPTY) : new KvCommand.AppendNote(key, element, EMPTY);
    }

    /** CRC32C of {@code first} followed by {@code second}. */
    public static int checksum(byte[] first, byte[] second) {
        CRC32C crc = new CRC32C();
        crc.update(first);
        crc.update(second);
        return (int) crc.getValue();
    }

    /**
     * The slots of the unresolved keys {@code payload} reads: the key of a read or compare-and-set, the
     * unresolved keys in a scan's range that {@code scanned} accepts, every one for a session command or an
     * undecodable payload; none for a put, delete or append, which overwrite or drop the bytes and never read
     * them. Ascending, distinct.
     */
    public static <D> long[] slotsRead(byte[] payload, Map<String, D> unresolved, ToLongFunction<D> slotOf,
            Predicate<String> scanned) {
        if (unresolved.isEmpty()) {
            return StateMachine.NO_SLOTS;
        }
        if (SessionCommand.isSessionCommand(payload)) {
            return allSlots(unresolved, slotOf); // Sessions touch keys of their own (ephemeral keys): resolve everything.
        }
        KvCommand command;
        try {
            command = KvCommand.decode(payload);
        } catch (IllegalArgumentException e) {
            return allSlots(unresolved, slotOf);
        }
        if (command instanceof KvCommand.Put || command instanceof KvCommand.Delete || command instanceof KvCommand.Append
                || command instanceof KvCommand.AppendNote) {
            return StateMachine.NO_SLOTS; // They overwrite or drop the bytes and never read them.
        }
        if (command instanceof KvCommand.Scan scan) {
            TreeSet<Long> slots = new TreeSet<>();
            for (Map.Entry<String, D> e : unresolved.entrySet()) {
                if (scanned.test(e.getKey()) && scan.contains(e.getKey().getBytes(StandardCharsets.UTF_8))) {
                    slots.add(slotOf.applyAsLong(e.getValue()));
                }
            }
            return slots.stream().mapToLong(Long::longValue).toArray();
        }
        D d = unresolved.get(command.key());
        return d == null ? StateMachine.NO_SLOTS : new long[] {slotOf.applyAsLong(d)};
    }

    /** Every slot holding an unresolved key, ascending, distinct. */
    public static <D> long[] allSlots(Map<String, D> unresolved, ToLongFunction<D> slotOf) {
        TreeSet<Long> slots = new TreeSet<>();
        for (D d : unresolved.values()) {
            slots.add(slotOf.applyAsLong(d));
        }
        return slots.stream().mapToLong(Long::longValue).toArray();
    }
}
