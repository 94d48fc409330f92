package io.synod.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.synod.server.wire.ByteWriter;
import io.synod.server.wire.WireCodec;
import io.synod.server.wire.WireFrame;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Packs the peer messages a node queued for one peer (every group's, in the order they were queued) into as few
 * {@link WireFrame.PeerBatch} frames as the frame limit allows, each {@code [length u32][body]} as the
 * {@link FrameDecoder} reads it. A message is encoded once, straight into the frame's bytes, and the frame is
 * handed to the channel as a wrapper of those bytes: no second copy before TLS or the socket takes them. A
 * message too large for a frame even alone is refused to {@code tooLarge} (the caller counts it as dropped) and
 * the rest still go.
 */
public final class PeerBatchEncoder {
    /** The bytes of one frame (length prefix included) and how many messages it carries. */
    public record Frame(ByteBuf bytes, int messages) {}

    private static final int PREFIX = 4;
    private final int maxFrameBytes;

    public PeerBatchEncoder(int maxFrameBytes) {
        if (maxFrameBytes < WireCodec.BATCH_HEADER_BYTES + 32) {
            throw new IllegalArgumentException("max frame of " + maxFrameBytes + " bytes cannot hold a peer message");
        }
        this.maxFrameBytes = maxFrameBytes;
    }

    public List<Frame> encode(List<WireFrame.PeerMessage> messages, Consumer<WireFrame.PeerMessage> tooLarge) {
        List<Frame> frames = new ArrayList<>();
        ByteWriter w = null;
        int count = 0;
        for (WireFrame.PeerMessage m : messages) {
            if (w != null && append(w, m)) {
                count++;
                continue;
            }
            if (w != null) {
                frames.add(finish(w, count));
            }
            w = start(messages.size(), m);
            count = 1;
            if (!append(w, m)) {
                tooLarge.accept(m);
                w = null;
            }
        }
        if (w != null) {
            frames.add(finish(w, count));
        }
        return frames;
    }

    /** A writer sized for the messages ahead (capped at a frame), so that it rarely grows and copies itself. */
    private ByteWriter start(int queued, WireFrame.PeerMessage first) {
        long hint = PREFIX + WireCodec.BATCH_HEADER_BYTES + (long) WireCodec.sizeHint(first) * Math.min(queued, 64);
        ByteWriter w = new ByteWriter((int) Math.min(hint, PREFIX + (long) maxFrameBytes));
        w.i32(0); // The length prefix, set by finish.
        WireCodec.writeBatchHeader(w);
        return w;
    }

    /** Adds {@code m} if the frame stays within the limit; otherwise leaves the frame as it was. */
    private boolean append(ByteWriter w, WireFrame.PeerMessage m) {
        int mark = w.size();
        WireCodec.writeBatchItem(w, m);
        if (w.size() - PREFIX > maxFrameBytes) {
            w.truncate(mark);
            return false;
        }
        return true;
    }

    private static Frame finish(ByteWriter w, int count) {
        WireCodec.finishBatch(w, PREFIX, count);
        w.setI32(0, w.size() - PREFIX);
        return new Frame(Unpooled.wrappedBuffer(w.array(), 0, w.size()), count);
    }
}
