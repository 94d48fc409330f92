package io.synod.client;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.CorruptedFrameException;
import io.synod.protocol.ClientFrame;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the frames a server sends on a {@link ServerConnection} (decoded by the channel's {@code ClientFrameDecoder})
 * to the {@link ClientEngine}; a malformed frame or a channel error drops the connection.
 */
final class InboundHandler extends SimpleChannelInboundHandler<ClientFrame> {
    private static final Logger LOG = LoggerFactory.getLogger(ClientEngine.class);

    private final ClientEngine engine;

    InboundHandler(ClientEngine engine) {
        this.engine = engine;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ClientFrame frame) {
        engine.onFrame(ctx.channel().attr(ServerConnection.KEY).get(), frame);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ServerConnection conn = ctx.channel().attr(ServerConnection.KEY).get();
        if (cause instanceof CorruptedFrameException) {
            LOG.warn("closing connection to {}: {}", conn.address, cause.getMessage());
            conn.onLost.accept(conn, "server " + conn.address + " sent a bad frame: " + cause.getMessage());
        } else {
            conn.onLost.accept(conn, "connection to " + conn.address + " failed: " + cause.getMessage());
        }
    }
}
