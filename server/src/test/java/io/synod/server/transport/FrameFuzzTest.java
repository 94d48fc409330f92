package io.synod.server.transport;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.synod.server.wire.WireCodec;
import io.synod.server.wire.WireFrame;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Random bytes, huge lengths, truncated and bit-flipped frames: the peer and client pipelines never
 * throw, never emit garbage, and never allocate a buffer larger than the maximum frame (plus the
 * length prefix and Netty's read buffer), whatever the stream claims.
 */
class FrameFuzzTest {
    static final int MAX_FRAME = 4096;

    /** Remembers the largest buffer capacity any allocation asked for. */
    static final class TrackingAllocator extends io.netty.buffer.AbstractByteBufAllocator {
        final ByteBufAllocator inner = new UnpooledByteBufAllocator(false);
        long largest;

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            largest = Math.max(largest, initialCapacity);
            return track(inner.heapBuffer(initialCapacity, maxCapacity));
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            largest = Math.max(largest, initialCapacity);
            return track(inner.directBuffer(initialCapacity, maxCapacity));
        }

        private ByteBuf track(ByteBuf b) {
            return b;
        }

        @Override
        public CompositeByteBuf compositeHeapBuffer(int maxNumComponents) {
            return inner.compositeHeapBuffer(maxNumComponents);
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }

        @Override
        public ByteBuf buffer(int initialCapacity, int maxCapacity) {
            return newHeapBuffer(initialCapacity, maxCapacity);
        }
    }

    @Test
    void randomStreamsNeverCrashOrOverAllocate() {
        SplittableRandom random = new SplittableRandom(20261123L);
        List<WireFrame> valid = List.of(new WireFrame.Hello(1, "c"), new WireFrame.Hello(2, "c".repeat(100)),
                new WireFrame.Hello(0, "c"));
        int closed = 0;
        long largestCumulation = 0;
        for (int run = 0; run < 3_000; run++) {
            TrackingAllocator alloc = new TrackingAllocator();
            EmbeddedChannel ch = new EmbeddedChannel();
            ch.config().setAllocator(alloc);
            ch.pipeline().addLast(new FrameDecoder(MAX_FRAME),
                    new PeerInboundHandler(1, "c", java.util.Set.of(0, 1, 2), m -> { }));
            int chunks = 1 + random.nextInt(20);
            for (int c = 0; c < chunks && ch.isOpen(); c++) {
                ByteBuf chunk = Unpooled(random, valid);
                ch.writeInbound(chunk);
            }
            if (!ch.isOpen()) {
                closed++;
            }
            ch.finishAndReleaseAll();
            largestCumulation = Math.max(largestCumulation, alloc.largest);
        }
        assertTrue(closed > 100, "hostile streams were closed: " + closed);
        // Cumulation may hold one whole frame plus its prefix plus at most one read chunk (< 2 * MAX_FRAME here).
        assertTrue(largestCumulation <= 2L * MAX_FRAME + 64, "largest allocation " + largestCumulation);
    }

    private static ByteBuf Unpooled(SplittableRandom r, List<WireFrame> valid) {
        ByteBuf b = io.netty.buffer.Unpooled.buffer();
        switch (r.nextInt(6)) {
            case 0 -> { // random bytes
                byte[] junk = new byte[r.nextInt(1, 64)];
                r.nextBytes(junk);
                b.writeBytes(junk);
            }
            case 1 -> b.writeInt(r.nextInt()); // a huge or negative length
            case 2 -> { // a length just above the limit, then a body streamed in: must never be buffered
                byte[] body = new byte[3_000];
                r.nextBytes(body);
                b.writeInt(MAX_FRAME + 1 + r.nextInt(Integer.MAX_VALUE - MAX_FRAME - 1)).writeBytes(body);
            }
            case 3 -> { // a truncated valid frame
                byte[] body = WireCodec.encode(valid.get(r.nextInt(valid.size())));
                b.writeInt(body.length).writeBytes(body, 0, r.nextInt(body.length));
            }
            case 4 -> { // a valid frame with one bit flipped
                byte[] body = WireCodec.encode(valid.get(r.nextInt(valid.size())));
                body[r.nextInt(body.length)] ^= (byte) (1 << r.nextInt(8));
                b.writeInt(body.length).writeBytes(body);
            }
            default -> { // a valid frame
                byte[] body = WireCodec.encode(valid.get(r.nextInt(valid.size())));
                b.writeInt(body.length).writeBytes(body);
            }
        }
        return b;
    }
}
