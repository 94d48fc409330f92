package io.synod.server.transport;

import io.synod.client.codec.LengthPrefixEncoder;
import io.synod.server.wire.WireCodec;
import io.synod.server.wire.WireFrame;
import java.util.concurrent.atomic.AtomicLong;

/** Writes a {@link WireFrame} as {@code [length u32][body]}; refuses a body above the frame limit. */
public final class FrameEncoder extends LengthPrefixEncoder<WireFrame> {
    public FrameEncoder(int maxFrameBytes) {
        this(maxFrameBytes, new AtomicLong());
    }

    /** @param bytesWritten counts every encoded byte (length prefix included), for metrics */
    public FrameEncoder(int maxFrameBytes, AtomicLong bytesWritten) {
        super(WireFrame.class, WireCodec::encode, maxFrameBytes, bytesWritten);
    }
}
