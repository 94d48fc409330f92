package io.synod.client.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientFrameCodec;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes a {@link ClientFrame} as {@code [length u32][body]} ({@link ClientFrameCodec}), the inverse of
 * {@link ClientFrameDecoder}. A body above the frame limit is refused here, naming the cause on the sending side,
 * instead of being sent for the other end to close the connection on it.
 */
public final class ClientFrameEncoder extends MessageToByteEncoder<ClientFrame> {
    private final int maxFrameBytes;
    private final AtomicLong bytesWritten;

    public ClientFrameEncoder(int maxFrameBytes) {
        this(maxFrameBytes, new AtomicLong());
    }

    /** @param bytesWritten counts every encoded byte (length prefix included), for metrics */
    public ClientFrameEncoder(int maxFrameBytes, AtomicLong bytesWritten) {
        super(ClientFrame.class);
        this.maxFrameBytes = maxFrameBytes;
        this.bytesWritten = bytesWritten;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, ClientFrame frame, ByteBuf out) {
        byte[] body = ClientFrameCodec.encode(frame);
        if (body.length > maxFrameBytes) {
            throw new IllegalArgumentException("frame of " + body.length + " bytes exceeds the limit of " + maxFrameBytes);
        }
        out.writeInt(body.length);
        out.writeBytes(body);
        bytesWritten.addAndGet(4L + body.length);
    }
}
