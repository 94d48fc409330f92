package io.synod.client;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientFrameCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes the frames a server sends on a {@link ServerConnection} and hands them to the
 * {@link ClientEngine}; a malformed frame or a channel error drops the connection.
 */
final class InboundHandler extends SimpleChannelInboundHandler<ByteBuf> {
    private static final Logger LOG = LoggerFactory.getLogger(ClientEngine.class);

    private final ClientEngine engine;

    InboundHandler(ClientEngine engine) {
        this.engine = engine;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
        ServerConnection conn = ctx.channel().attr(ServerConnection.KEY).get();
        byte[] body = new byte[msg.readableBytes()];
        msg.readBytes(body);
        ClientFrame frame;
        try {
            frame = ClientFrameCodec.decode(body);
        } catch (IllegalArgumentException e) {
            LOG.warn("closing connection to {}: malformed frame: {}", conn.address, e.getMessage());
            engine.lost(conn, "server " + conn.address + " sent a malformed frame: " + e.getMessage());
            return;
        }
        engine.onFrame(conn, frame);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ServerConnection conn = ctx.channel().attr(ServerConnection.KEY).get();
        engine.lost(conn, "connection to " + conn.address + " failed: " + cause.getMessage());
    }
}
