package io.synod.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.synod.server.wire.MalformedInputException;
import io.synod.server.wire.WireCodec;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Splits the byte stream into {@code [length u32][body]} frames and decodes each body into a
 * {@code WireFrame}. The length is checked against the maximum before a single body byte is read or
 * buffered, so a hostile length never makes us allocate: a length outside {@code 1..maxFrameBytes}
 * or a body that does not decode closes this connection, with the reason logged, and nothing else.
 * An incomplete frame is held by a {@link PartialFrameGate} (the node-wide {@link FrameBudget} and the
 * frame timeout), the same guard the client port puts around its frames.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
    private static final RateLimitedLog REFUSALS = new RateLimitedLog(LoggerFactory.getLogger(FrameDecoder.class));

    private final int maxFrameBytes;
    private final PartialFrameGate gate;
    private boolean closed;

    /** Without a budget or timeout: for tests of the framing alone. */
    public FrameDecoder(int maxFrameBytes) {
        this(maxFrameBytes, FrameBudget.UNLIMITED, 0);
    }

    /** {@code frameTimeoutMillis} 0: no timeout. */
    public FrameDecoder(int maxFrameBytes, FrameBudget budget, long frameTimeoutMillis) {
        if (maxFrameBytes < 16) {
            throw new IllegalArgumentException("max frame must be >= 16 bytes, got " + maxFrameBytes);
        }
        this.maxFrameBytes = maxFrameBytes;
        this.gate = new PartialFrameGate(budget, frameTimeoutMillis);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (closed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (in.readableBytes() >= 4) {
            int length = in.getInt(in.readerIndex());
            if (length < 1 || length > maxFrameBytes) {
                reject(ctx, in, "frame length " + Integer.toUnsignedString(length) + " is outside 1.." + maxFrameBytes);
                return;
            }
            if (in.readableBytes() < 4 + length) {
                // Wait for the rest; at most maxFrameBytes + 4 are ever buffered, and only within the budget.
                if (!gate.waiting(ctx, length)) {
                    reject(ctx, in, gate.refusal());
                }
                return;
            }
            in.skipBytes(4);
            gate.done();
            try {
                // A view of the received bytes: the codec copies each field out (one copy of a value), nothing keeps it.
                out.add(WireCodec.decode(in.nioBuffer(in.readerIndex(), length)));
            } catch (MalformedInputException e) {
                reject(ctx, in, "malformed frame: " + e.getMessage());
                return;
            }
            in.skipBytes(length);
        }
        if (in.isReadable() && !gate.waiting(ctx, 0)) { // A length prefix has begun.
            reject(ctx, in, gate.refusal());
        }
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        super.decodeLast(ctx, in, out);
        gate.done();
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        gate.done(); // The connection is gone (or the decoder removed): its reservation goes back.
    }

    private void reject(ChannelHandlerContext ctx, ByteBuf in, String reason) {
        closed = true;
        gate.done();
        in.skipBytes(in.readableBytes());
        REFUSALS.warn("closing connection from {}: {}", ctx.channel().remoteAddress(), reason);
        ctx.close();
    }
}
