package io.synod.client.codec;

import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientFrameCodec;
import java.util.concurrent.atomic.AtomicLong;

/** Writes a {@link ClientFrame} as {@code [length u32][}{@link ClientFrameCodec} body{@code ]}; the inverse of {@link ClientFrameDecoder}. */
public final class ClientFrameEncoder extends LengthPrefixEncoder<ClientFrame> {
    public ClientFrameEncoder(int maxFrameBytes) {
        this(maxFrameBytes, new AtomicLong());
    }

    /** @param bytesWritten counts every encoded byte (length prefix included), for metrics */
    public ClientFrameEncoder(int maxFrameBytes, AtomicLong bytesWritten) {
        super(ClientFrame.class, ClientFrameCodec::encode, maxFrameBytes, bytesWritten);
    }
}
