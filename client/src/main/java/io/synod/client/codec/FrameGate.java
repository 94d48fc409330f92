package io.synod.client.codec;

import io.netty.channel.ChannelHandlerContext;

/**
 * What a {@link ClientFrameDecoder} asks before it buffers an incomplete frame. The SDK trusts its server and
 * passes {@link #OPEN}; a server's client port passes a gate that holds partial frames to a node-wide byte budget
 * and a time limit, so that connections stopping short of their frames cannot exhaust its memory.
 */
public interface FrameGate {
    /** No budget, no time limit. */
    FrameGate OPEN = new FrameGate() {
        @Override
        public boolean waiting(ChannelHandlerContext ctx, int length) {
            return true;
        }

        @Override
        public void done() {}
    };

    /**
     * A frame is incomplete: {@code length} is its announced body length (already within the decoder's maximum),
     * or 0 while the length prefix itself is incomplete. Called again for every read until the frame is done.
     * False refuses it: the decoder fails the connection with {@link #refusal()} as the reason. A gate may also
     * close the connection itself later (a frame that does not complete in time).
     */
    boolean waiting(ChannelHandlerContext ctx, int length);

    /** The frame completed, or the connection ended or was refused: whatever was held for it is given back. */
    void done();

    /** Why the last {@link #waiting} returned false. */
    default String refusal() {
        return "frame refused";
    }
}
