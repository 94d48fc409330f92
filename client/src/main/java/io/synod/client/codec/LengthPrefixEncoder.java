package io.synod.client.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Writes a message as {@code [length u32][body]}, its body made by the protocol's codec: the framing every Synod
 * connection shares (the client protocol's {@link ClientFrameEncoder}, the server's peer frames). A body above the
 * frame limit is refused here, naming the cause on the sending side, instead of being sent for the other end to
 * close the connection on it. The encoded body is handed on wrapped, behind a 4-byte prefix, not copied into a
 * second buffer: TLS or the socket reads it from where the codec wrote it.
 */
public class LengthPrefixEncoder<T> extends MessageToMessageEncoder<T> {
    private final Function<T, byte[]> codec;
    private final int maxFrameBytes;
    private final AtomicLong bytesWritten;

    /** @param bytesWritten counts every encoded byte (length prefix included), for metrics */
    protected LengthPrefixEncoder(Class<T> type, Function<T, byte[]> codec, int maxFrameBytes, AtomicLong bytesWritten) {
        super(type);
        this.codec = codec;
        this.maxFrameBytes = maxFrameBytes;
        this.bytesWritten = bytesWritten;
    }

    @Override
    protected final void encode(ChannelHandlerContext ctx, T message, List<Object> out) {
        byte[] body = codec.apply(message);
        if (body.length > maxFrameBytes) {
            throw new IllegalArgumentException("frame of " + body.length + " bytes exceeds the limit of " + maxFrameBytes);
        }
        ByteBuf prefix = ctx.alloc().heapBuffer(4, 4).writeInt(body.length);
        out.add(Unpooled.wrappedBuffer(prefix, Unpooled.wrappedBuffer(body)));
        bytesWritten.addAndGet(4L + body.length);
    }
}
