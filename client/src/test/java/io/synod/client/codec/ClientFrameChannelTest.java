package io.synod.client.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.EncoderException;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientFrameCodec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The client protocol's frame pair on an {@link EmbeddedChannel}: what the encoder writes the decoder reads. */
class ClientFrameChannelTest {
    private static final List<ClientFrame> FRAMES = List.of(new ClientFrame.StatusQuery(1),
            new ClientFrame.Command(2, 7, 3, new byte[] {1, 2, 3}, ClientFrame.FLAG_THROUGH_LOG),
            new ClientFrame.ShardMapQuery(4), new ClientFrame.CodingChange(5, 0, 2, 1, 4096),
            new ClientFrame.MembershipRequest(6, 1, ClientFrame.MEMBERSHIP_STATUS, -1, ClientFrame.FLAG_ROUTED),
            new ClientFrame.PlacementQuery(7, ClientFrame.FEATURE_ROUTED_ADMIN));

    private static ByteBuf encoded(List<ClientFrame> frames) {
        EmbeddedChannel out = new EmbeddedChannel(new ClientFrameEncoder(1024));
        ByteBuf all = Unpooled.buffer();
        for (ClientFrame f : frames) {
            out.writeOutbound(f);
            ByteBuf one = out.readOutbound();
            all.writeBytes(one);
            one.release();
        }
        return all;
    }

    @Test
    void theDecoderReadsWhatTheEncoderWroteWholeOrByteByByte() {
        ByteBuf bytes = encoded(FRAMES);
        assertEquals(ClientFrameCodec.encode(FRAMES.get(0)).length, bytes.getInt(0), "a u32 length prefix");
        EmbeddedChannel whole = new EmbeddedChannel(new ClientFrameDecoder(1024));
        whole.writeInbound(bytes.retainedDuplicate());
        EmbeddedChannel split = new EmbeddedChannel(new ClientFrameDecoder(1024));
        while (bytes.isReadable()) {
            split.writeInbound(bytes.readRetainedSlice(1));
        }
        bytes.release();
        for (EmbeddedChannel ch : List.of(whole, split)) {
            for (ClientFrame f : FRAMES) {
                ClientFrame back = ch.readInbound();
                assertEquals(ClientFrameCodec.encode(f).length, ClientFrameCodec.encode(back).length);
                assertEquals(f.getClass(), back.getClass());
                assertEquals(f.requestId(), back.requestId());
            }
            assertNull(ch.readInbound());
            assertTrue(ch.isOpen());
        }
    }

    @Test
    void aLengthOutsideTheLimitFailsBeforeTheBodyIsRead() {
        for (int length : new int[] {0, -1, 1025, Integer.MIN_VALUE}) {
            EmbeddedChannel ch = new EmbeddedChannel(new ClientFrameDecoder(1024));
            CorruptedFrameException e = assertThrows(CorruptedFrameException.class,
                    () -> ch.writeInbound(Unpooled.buffer().writeInt(length).writeByte(1)));
            assertTrue(e.getMessage().contains("outside 1..1024"), e.getMessage());
            assertNull(ch.readInbound());
        }
    }

    @Test
    void aMalformedBodyFailsTheConnectionNamingTheProblemAndNothingAfterItIsRead() {
        EmbeddedChannel ch = new EmbeddedChannel(new ClientFrameDecoder(1024));
        ByteBuf bad = Unpooled.buffer().writeInt(3).writeBytes(new byte[] {1, 99, 0});
        bad.writeBytes(encoded(List.of(new ClientFrame.StatusQuery(9))));
        CorruptedFrameException e = assertThrows(CorruptedFrameException.class, () -> ch.writeInbound(bad));
        assertTrue(e.getMessage().startsWith("malformed frame: "), e.getMessage());
        assertNull(ch.readInbound(), "the good frame after the bad one is not read");
        ch.writeInbound(encoded(List.of(new ClientFrame.StatusQuery(10))));
        assertNull(ch.readInbound(), "nor anything later");
    }

    @Test
    void theEncoderRefusesAFrameAboveTheLimitOnTheSendingSide() {
        EmbeddedChannel out = new EmbeddedChannel(new ClientFrameEncoder(64));
        assertThrows(EncoderException.class, () -> out.writeOutbound(new ClientFrame.Command(1, 1, 1, new byte[100])));
        assertNull(out.readOutbound());
    }

    /** A gate that records what the decoder asks and refuses frames longer than {@code refuseAbove}. */
    private static final class RecordingGate implements FrameGate {
        final List<Integer> waiting = new ArrayList<>();
        int done;
        final int refuseAbove;

        RecordingGate(int refuseAbove) {
            this.refuseAbove = refuseAbove;
        }

        @Override
        public boolean waiting(ChannelHandlerContext ctx, int length) {
            waiting.add(length);
            return length <= refuseAbove;
        }

        @Override
        public void done() {
            done++;
        }

        @Override
        public String refusal() {
            return "over the test budget";
        }
    }

    @Test
    void anIncompleteFrameAsksTheGateAndACompleteOneGivesBack() {
        RecordingGate gate = new RecordingGate(1024);
        EmbeddedChannel ch = new EmbeddedChannel(new ClientFrameDecoder(1024, gate));
        ByteBuf frame = encoded(List.of(new ClientFrame.StatusQuery(1)));
        int length = frame.getInt(0);
        ch.writeInbound(frame.readRetainedSlice(2));
        ch.writeInbound(frame.readRetainedSlice(3));
        assertEquals(List.of(0, length), gate.waiting, "a partial prefix, then the announced length");
        assertEquals(0, gate.done);
        ch.writeInbound(frame);
        assertEquals(new ClientFrame.StatusQuery(1), ch.readInbound());
        assertEquals(1, gate.done);
    }

    @Test
    void aRefusalOfTheGateFailsTheConnectionWithItsReason() {
        RecordingGate gate = new RecordingGate(8);
        EmbeddedChannel ch = new EmbeddedChannel(new ClientFrameDecoder(1024, gate));
        CorruptedFrameException e = assertThrows(CorruptedFrameException.class,
                () -> ch.writeInbound(Unpooled.buffer().writeInt(500).writeByte(1)));
        assertEquals("over the test budget", e.getMessage());
        assertTrue(gate.done > 0, "what the gate held is given back");
        ch.close();
        assertFalse(ch.isOpen());
    }
}
