package io.synod.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;
import io.synod.server.wire.WireCodec;
import io.synod.server.wire.WireFrame;
import java.util.concurrent.atomic.AtomicLong;

/** Writes a {@link WireFrame} as {@code [length u32][body]}; refuses a body above the frame limit. */
public final class FrameEncoder extends MessageToByteEncoder<WireFrame> {
    private final int maxFrameBytes;
    private final AtomicLong bytesWritten;

    public FrameEncoder(int maxFrameBytes) {
        this(maxFrameBytes, new AtomicLong());
    }

    /** @param bytesWritten counts every encoded byte (length prefix included), for metrics */
    public FrameEncoder(int maxFrameBytes, AtomicLong bytesWritten) {
        super(WireFrame.class);
        this.maxFrameBytes = maxFrameBytes;
        this.bytesWritten = bytesWritten;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, WireFrame frame, ByteBuf out) {
        byte[] body = WireCodec.encode(frame);
        if (body.length > maxFrameBytes) {
            // The peer would close on it; failing here names the cause on the sending side.
            throw new IllegalArgumentException("frame of " + body.length + " bytes exceeds the limit of " + maxFrameBytes);
        }
        out.writeInt(body.length);
        out.writeBytes(body);
        bytesWritten.addAndGet(4L + body.length);
    }
}
