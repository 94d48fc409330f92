package io.synod.core.kv;

import static io.synod.core.kv.KvLayout.*;

import io.synod.core.paxos.CodedValue;
import io.synod.core.paxos.AppliedState;
import io.synod.core.util.Check;
import io.synod.protocol.KvCommand;
import io.synod.protocol.SessionCommand;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.zip.CRC32C;

/**
 * Deferred follower rebuild (RS-Paxos coded values, docs/erasure.md) in {@link KvStateMachine}: the uncoded header a
 * leader puts in a coded {@code Put} or {@code AppendNote} and the CRC32C that ties a rebuilt command to the header
 * and length applied at its slot (static, public: the server's tests build headers with them), and the unresolved
 * keys, which slots a command reads and their rebuild. An unresolved key is one whose
 * {@code Put} (or, with notes kept, {@code AppendNote}) was applied from its deferral header, without the bytes. Each
 * is kept in the store under {@code 0 'U' key} as {@code [slot u64][payload length i32][payload CRC32C i32][header
 * length i32][header]}, staged with the data change, so a durable store keeps it over a restart; this class mirrors
 * them in memory, so the question asked before every applied command costs no store read.
 */
public final class KvDeferrals {
    private static final byte[] EMPTY = new byte[0];

    /** One unresolved key: the slot of its deferred write, the header, and the whole payload's length and CRC32C. */
    record Deferred(long slot, byte[] header, int length, int checksum) {
        boolean isPut() {
            return header[0] == KvCommand.TAG_PUT;
        }
    }

    private final KvView view;
    private final boolean keepNotes;
    private final TreeMap<String, Deferred> byKey = new TreeMap<>();

    KvDeferrals(KvView view, boolean keepNotes) {
        this.view = view;
        this.keepNotes = keepNotes;
    }

    /** Whether a list's last note (its CRC32C) is state; then an {@code AppendNote} can be unresolved too. */
    boolean keepsNotes() {
        return keepNotes;
    }

    boolean isEmpty() {
        return byKey.isEmpty();
    }

    int size() {
        return byKey.size();
    }

    Map<String, Deferred> all() {
        return byKey;
    }

    /** Records {@code key} as unresolved at {@code d.slot()}. */
    void put(String key, Deferred d) {
        byKey.put(key, d);
        view.stage(prefixed(UNRESOLVED_PREFIX, key), ByteBuffer.allocate(20 + d.header().length).putLong(d.slot())
                .putInt(d.length()).putInt(d.checksum()).putInt(d.header().length).put(d.header()).array());
    }

    /** Drops {@code key}'s unresolved record (overwritten, deleted, or resolved). */
    void drop(String key) {
        if (byKey.remove(key) != null) {
            view.stage(prefixed(UNRESOLVED_PREFIX, key), null);
        }
    }

    /** Forgets everything in memory (the state was replaced; {@link #load} reads what the new one holds). */
    void clear() {
        byKey.clear();
    }

    /** Every slot holding an unresolved key, ascending, distinct. */
    long[] slots() {
        TreeSet<Long> slots = new TreeSet<>();
        for (Deferred d : byKey.values()) {
            slots.add(d.slot());
        }
        return slots.stream().mapToLong(Long::longValue).toArray();
    }

    /**
     * The slots of the unresolved keys {@code payload} reads: the key of a read or compare-and-set, the unresolved
     * value keys in a scan's range (a scan reads no list's note), every one for a session command or an undecodable
     * payload; none for a put, delete or append, which overwrite or drop the bytes and never read them. Ascending,
     * distinct.
     */
    long[] slotsFor(byte[] payload) {
        if (byKey.isEmpty()) {
            return AppliedState.NO_SLOTS;
        }
        if (SessionCommand.isSessionCommand(payload)) {
            return slots(); // Sessions touch keys of their own (ephemeral keys): resolve everything.
        }
        KvCommand command;
        try {
            command = KvCommand.decode(payload);
        } catch (IllegalArgumentException e) {
            return slots();
        }
        if (command instanceof KvCommand.Put || command instanceof KvCommand.Delete || command instanceof KvCommand.Append
                || command instanceof KvCommand.AppendNote) {
            return AppliedState.NO_SLOTS; // They overwrite or drop the bytes and never read them.
        }
        if (command instanceof KvCommand.Scan scan) {
            TreeSet<Long> slots = new TreeSet<>();
            for (Map.Entry<String, Deferred> e : byKey.entrySet()) {
                if (e.getValue().isPut() && scan.contains(e.getKey().getBytes(StandardCharsets.UTF_8))) {
                    slots.add(e.getValue().slot());
                }
            }
            return slots.stream().mapToLong(Long::longValue).toArray();
        }
        Deferred d = byKey.get(command.key());
        return d == null ? AppliedState.NO_SLOTS : new long[] {d.slot()};
    }

    /** Loads the records the store holds (after opening or swapping in a store). */
    void load() {
        byKey.clear();
        view.store().scanPrefix(UNRESOLVED_PREFIX, (k, record) -> {
            String key = userKey(k, UNRESOLVED_PREFIX.length);
            try {
                ByteBuffer in = ByteBuffer.wrap(record);
                long slot = in.getLong();
                int length = in.getInt();
                int checksum = in.getInt();
                byte[] header = lengthPrefixed(in, "unresolved header");
                if (in.hasRemaining() || slot <= 0 || header.length == 0 || header.length >= length) {
                    throw new IllegalArgumentException("slot " + slot + ", header of " + header.length + " bytes, payload of "
                            + length + " bytes, " + in.remaining() + " bytes after it");
                }
                byKey.put(key, new Deferred(slot, header, length, checksum));
            } catch (RuntimeException e) {
                throw new IllegalStateException("the store holds a bad unresolved-key record for key " + key + ": "
                        + e.getMessage(), e);
            }
            return true;
        });
    }

    /**
     * The rebuilt payload of the command applied deferred at {@code slot}: a {@code Put}'s value is staged under its key
     * (version unchanged), an {@code AppendNote}'s note digest under the list's note; ignored if the key is not
     * unresolved at that slot; {@link IllegalStateException} if the payload's length, CRC32C or header differ from
     * those applied there.
     */
    void resolve(long slot, byte[] payload) {
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
        Check.state(payload.length == d.length() && checksum(payload, EMPTY) == d.checksum()
                && Arrays.equals(d.header(), 0, d.header().length, payload, 0, d.header().length),
                "the value rebuilt for slot %d does not match the header and checksum applied there", slot);
        if (command instanceof KvCommand.Put p) {
            byte[] valueKey = key(VALUE, p.key());
            byte[] stored = view.get(valueKey);
            Check.state(stored != null && versionOf(stored) == slot, "key %s is unresolved at slot %d but holds %s", p.key(),
                    slot, stored == null ? "nothing" : "version " + versionOf(stored));
            view.stage(valueKey, stored(slot, p.value()));
        } else {
            view.stage(prefixed(NOTE_PREFIX, command.key()), noteDigest(((KvCommand.AppendNote) command).note()));
        }
        drop(command.key());
    }

    /**
     * Resolves every key unresolved at or below {@code snapshotSlot} from {@code peer}, the stored values of a peer's
     * snapshot of chosen state through that slot ({@code peer} answers a stored key with its stored value, null if
     * absent, for all keys at once): no write of such a key was applied since, so the snapshot holds its bytes at the
     * same version. A value is checked against the length and CRC32C of the command applied deferred; a note's digest
     * (4 bytes) cannot be, the snapshot being chosen state is what vouches for it.
     */
    void resolveFrom(long snapshotSlot, Function<List<byte[]>, List<byte[]>> peer) {
        List<String> due = byKey.entrySet().stream().filter(e -> e.getValue().slot() <= snapshotSlot).map(Map.Entry::getKey).toList();
        if (due.isEmpty()) {
            return;
        }
        List<byte[]> keys = due.stream().map(k -> byKey.get(k).isPut() ? key(VALUE, k) : prefixed(NOTE_PREFIX, k)).toList();
        List<byte[]> found = peer.apply(keys);
        for (int i = 0; i < due.size(); i++) {
            Deferred d = byKey.get(due.get(i));
            byte[] bytes = found.get(i);
            boolean ok = d.isPut() ? bytes != null && bytes.length >= 8 && versionOf(bytes) == d.slot()
                    && d.header().length + (long) bytes.length - 8 == d.length()
                    && checksum(d.header(), valueOf(bytes)) == d.checksum() : bytes != null && bytes.length == 4;
            Check.state(ok, "a peer's snapshot through slot %d does not hold the bytes of key %s written at slot %d",
                    snapshotSlot, due.get(i), d.slot());
        }
        for (int i = 0; i < due.size(); i++) {
            view.stage(keys.get(i), found.get(i));
            drop(due.get(i));
        }
    }

    /**
     * Whether every unresolved key's slot holds, in {@code codedBySlot}, the coded value applied there (same length
     * and CRC32C).
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
     * The deferral header of {@code payload} (see {@code AppliedState#deferralHeader}): a {@code Put} or
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

    /** What a kept note is: its CRC32C (4 bytes, big-endian); computing it needs the note's bytes. */
    static byte[] noteDigest(byte[] note) {
        return ByteBuffer.allocate(4).putInt(checksum(note, EMPTY)).array();
    }
}
