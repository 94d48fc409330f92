package io.synod.core.kv;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The byte-level part of deferred follower rebuild (RS-Paxos coded values, docs/erasure.md): reading
 * the uncoded header a leader puts in a coded {@code Put} or {@code AppendNote}, and the CRC32C that
 * ties a rebuilt command to the header and length applied at its slot.
 */
final class KvDeferral {
    private static final byte[] EMPTY = new byte[0];

    private KvDeferral() {}

    /** The command a header stands for, with an empty value (only its key, tag and element are used). */
    static KvCommand parseHeader(byte[] header, int payloadLength) {
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
    static int checksum(byte[] first, byte[] second) {
        CRC32C crc = new CRC32C();
        crc.update(first);
        crc.update(second);
        return (int) crc.getValue();
    }
}
