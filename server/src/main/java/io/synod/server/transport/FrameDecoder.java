package io.synod.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.synod.server.wire.MalformedInputException;
import io.synod.server.wire.WireCodec;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits the byte stream into {@code [length u32][body]} frames and decodes each body into a
 * {@code WireFrame}. The length is checked against the maximum before a single body byte is read or
 * buffered, so a hostile length never makes us allocate: a length outside {@code 1..maxFrameBytes}
 * or a body that does not decode closes this connection, with the reason logged, and nothing else.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
    private static final Logger LOG = LoggerFactory.getLogger(FrameDecoder.class);

    private final int maxFrameBytes;
    private boolean closed;

    public FrameDecoder(int maxFrameBytes) {
        if (maxFrameBytes < 16) {
            throw new IllegalArgumentException("max frame must be >= 16 bytes, got " + maxFrameBytes);
        }
        this.maxFrameBytes = maxFrameBytes;
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
                return; // Wait for the rest; at most maxFrameBytes + 4 are ever buffered.
            }
            in.skipBytes(4);
            byte[] body = new byte[length];
            in.readBytes(body);
            try {
                out.add(WireCodec.decode(body));
            } catch (MalformedInputException e) {
                reject(ctx, in, "malformed frame: " + e.getMessage());
                return;
            }
        }
    }

    private void reject(ChannelHandlerContext ctx, ByteBuf in, String reason) {
        closed = true;
        in.skipBytes(in.readableBytes());
        LOG.warn("closing connection from {}: {}", ctx.channel().remoteAddress(), reason);
        ctx.close();
    }
}
