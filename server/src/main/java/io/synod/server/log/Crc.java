package io.synod.server.log;

import java.util.zip.CRC32C;

final class Crc {
    private Crc() {}

    static int of(byte[] bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int) crc.getValue();
    }
}
