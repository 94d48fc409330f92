package io.synod.client.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.CorruptedFrameException;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientFrameCodec;
import java.util.List;

/**
 * Reads {@code [length u32][body]} frames of the client protocol and decodes each body with {@link ClientFrameCodec};
 * the inverse of {@link ClientFrameEncoder}. Both ends of a client connection use this pair: the SDK and the server's
 * client port. The length is checked against the maximum before a body byte is buffered, so a hostile length never
 * makes it allocate; an incomplete frame waits only as long as its {@link FrameGate} allows. A length outside
 * {@code 1..maxFrameBytes}, a body that does not decode or a refusal of the gate fails the connection with a
 * {@link CorruptedFrameException} naming the problem (the channel's handler reports and closes), and nothing after
 * it on that connection is read.
 */
public final class ClientFrameDecoder extends ByteToMessageDecoder {
    private final int maxFrameBytes;
    private final FrameGate gate;
    private boolean failed;

    /** For the SDK: no budget, no time limit. */
    public ClientFrameDecoder(int maxFrameBytes) {
        this(maxFrameBytes, FrameGate.OPEN);
    }

    public ClientFrameDecoder(int maxFrameBytes, FrameGate gate) {
        if (maxFrameBytes < 16) {
            throw new IllegalArgumentException("max frame must be >= 16 bytes, got " + maxFrameBytes);
        }
        this.maxFrameBytes = maxFrameBytes;
        this.gate = gate;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (in.readableBytes() >= 4) {
            int length = in.getInt(in.readerIndex());
            if (length < 1 || length > maxFrameBytes) {
                fail(in, "frame length " + Integer.toUnsignedString(length) + " is outside 1.." + maxFrameBytes);
            }
            if (in.readableBytes() < 4 + length) {
                wait(ctx, in, length);
                return;
            }
            in.skipBytes(4);
            gate.done();
            ClientFrame frame;
            try {
                // A view of the received bytes: the codec copies each field out, nothing keeps the view.
                frame = ClientFrameCodec.decode(in.nioBuffer(in.readerIndex(), length));
            } catch (IllegalArgumentException e) {
                fail(in, "malformed frame: " + e.getMessage());
                return;
            }
            in.skipBytes(length);
            out.add(frame);
        }
        if (in.isReadable()) {
            wait(ctx, in, 0); // A length prefix has begun.
        }
    }

    private void wait(ChannelHandlerContext ctx, ByteBuf in, int length) {
        if (!gate.waiting(ctx, length)) {
            fail(in, gate.refusal());
        }
    }

    private void fail(ByteBuf in, String reason) {
        failed = true;
        gate.done();
        in.skipBytes(in.readableBytes());
        throw new CorruptedFrameException(reason);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        gate.done(); // The connection is gone (or the decoder removed): what the gate held goes back.
    }
}
