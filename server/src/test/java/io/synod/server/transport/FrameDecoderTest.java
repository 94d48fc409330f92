package io.synod.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientFrameCodec;
import io.synod.server.wire.WireCodec;
import io.synod.server.wire.WireFrame;
import org.junit.jupiter.api.Test;

class FrameDecoderTest {
    static ByteBuf frame(WireFrame f) {
        byte[] body = WireCodec.encode(f);
        return Unpooled.buffer().writeInt(body.length).writeBytes(body);
    }

    @Test
    void decodesWholeAndSplitFrames() {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1024));
        ByteBuf two = Unpooled.buffer().writeBytes(frame(new WireFrame.Hello(1, "c"))).writeBytes(frame(new WireFrame.Hello(2, "c")));
        // Feed byte by byte: frames come out only when complete.
        while (two.isReadable()) {
            ch.writeInbound(two.readRetainedSlice(1));
        }
        assertEquals(new WireFrame.Hello(1, "c"), ch.readInbound());
        assertEquals(new WireFrame.Hello(2, "c"), ch.readInbound());
        assertNull(ch.readInbound());
        assertTrue(ch.isOpen());
    }

    @Test
    void oversizedLengthClosesBeforeReadingTheBody() {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1024));
        ch.writeInbound(Unpooled.buffer().writeInt(1025).writeByte(1));
        assertFalse(ch.isOpen());
        assertNull(ch.readInbound());
    }

    @Test
    void zeroAndNegativeLengthsClose() {
        for (int len : new int[] {0, -1, Integer.MIN_VALUE}) {
            EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1024));
            ch.writeInbound(Unpooled.buffer().writeInt(len));
            assertFalse(ch.isOpen(), "length " + len);
        }
    }

    @Test
    void malformedBodyClosesOnlyThatConnection() {
        EmbeddedChannel bad = new EmbeddedChannel(new FrameDecoder(1024));
        EmbeddedChannel good = new EmbeddedChannel(new FrameDecoder(1024));
        bad.writeInbound(Unpooled.buffer().writeInt(3).writeBytes(new byte[] {1, 99, 0}));
        good.writeInbound(frame(new WireFrame.Hello(5, "c")));
        assertFalse(bad.isOpen());
        assertTrue(good.isOpen());
        assertInstanceOf(WireFrame.Hello.class, good.readInbound());
    }

    @Test
    void clientFramesAreRefusedOnThePeerPort() {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1024));
        byte[] body = ClientFrameCodec.encode(new ClientFrame.StatusQuery(1));
        ch.writeInbound(Unpooled.buffer().writeInt(body.length).writeBytes(body));
        assertFalse(ch.isOpen());
        assertNull(ch.readInbound());
    }

    @Test
    void encoderWritesWhatTheDecoderReads() {
        EmbeddedChannel out = new EmbeddedChannel(new FrameEncoder(1024));
        out.writeOutbound(new WireFrame.Hello(1, "x"));
        ByteBuf bytes = out.readOutbound();
        EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(1024));
        in.writeInbound(bytes);
        assertEquals(new WireFrame.Hello(1, "x"), in.readInbound());
    }

    @Test
    void encoderRefusesAFrameAboveTheLimit() {
        EmbeddedChannel out = new EmbeddedChannel(new FrameEncoder(64));
        org.junit.jupiter.api.Assertions.assertThrows(io.netty.handler.codec.EncoderException.class,
                () -> out.writeOutbound(new WireFrame.Hello(1, "c".repeat(100))));
        assertNull(out.readOutbound());
    }
}
