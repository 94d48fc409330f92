package io.synod.bench.ensemble;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.CorruptedFrameException;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.LongFunction;

/**
 * Sits in an election proxy and rewrites the election address that a connecting ZooKeeper server
 * announces in its first message, replacing it with that server's own election <em>proxy</em>.
 *
 * <p>Why: in ZooKeeper 3.9.5 ({@code QuorumCnxManager.handleConnection}), a server that receives an
 * election connection from a server with a lower id drops it and dials back to the address the caller
 * announced, which is the caller's real bind address. Without this rewrite that dial-back would bypass
 * the proxies and election traffic between such a pair would see no injected delay.
 *
 * <p>The first message is {@code long protocolVersion (-65536 or -65535), long serverId, int length,
 * length bytes of "host:port[|host:port...]"}. Anything else is passed through untouched. The handler
 * removes itself after the first message.
 */
final class ElectionAddressRewriter extends ByteToMessageDecoder {

    static final long PROTOCOL_VERSION_V1 = -65536L;
    static final long PROTOCOL_VERSION_V2 = -65535L;
    /** ZooKeeper's own bound on this field (QuorumCnxManager.maxBuffer). */
    static final int MAX_ADDRESS_BYTES = 2048;
    private static final int HEADER_BYTES = 8 + 8 + 4;

    private final LongFunction<String> proxyAddressOfServer;

    /** @param proxyAddressOfServer "host:port" of a server's election proxy, or null to leave its address alone */
    ElectionAddressRewriter(LongFunction<String> proxyAddressOfServer) {
        this.proxyAddressOfServer = proxyAddressOfServer;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (in.readableBytes() < 8) {
            return;
        }
        long protocolVersion = in.getLong(in.readerIndex());
        if (protocolVersion != PROTOCOL_VERSION_V1 && protocolVersion != PROTOCOL_VERSION_V2) {
            // An old-style first message (just the server id) or not ZooKeeper at all: not ours to change.
            ctx.pipeline().remove(this);
            return;
        }
        if (in.readableBytes() < HEADER_BYTES) {
            return;
        }
        long serverId = in.getLong(in.readerIndex() + 8);
        int length = in.getInt(in.readerIndex() + 16);
        if (length <= 0 || length > MAX_ADDRESS_BYTES) {
            throw new CorruptedFrameException("election handshake from server " + serverId
                    + " announces an address of " + length + " bytes (allowed 1.." + MAX_ADDRESS_BYTES + ")");
        }
        if (in.readableBytes() < HEADER_BYTES + length) {
            return;
        }
        String replacement = proxyAddressOfServer.apply(serverId);
        if (replacement == null) {
            ctx.pipeline().remove(this);
            return;
        }
        in.skipBytes(HEADER_BYTES + length);
        byte[] address = replacement.getBytes(StandardCharsets.US_ASCII);
        ByteBuf rewritten = ctx.alloc().buffer(HEADER_BYTES + address.length);
        rewritten.writeLong(protocolVersion).writeLong(serverId).writeInt(address.length).writeBytes(address);
        out.add(rewritten);
        // Bytes after the first message (already buffered here) are handed on unchanged by the removal.
        ctx.pipeline().remove(this);
    }
}
