package io.synod.bench.ensemble;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ElectionAddressRewriterTest {

    private static ByteBuf handshake(long version, long serverId, String address) {
        byte[] bytes = address.getBytes(StandardCharsets.US_ASCII);
        return Unpooled.buffer().writeLong(version).writeLong(serverId).writeInt(bytes.length).writeBytes(bytes);
    }

    private static byte[] drain(EmbeddedChannel channel) {
        ByteBuf all = Unpooled.buffer();
        ByteBuf next;
        while ((next = channel.readInbound()) != null) {
            all.writeBytes(next);
            next.release();
        }
        byte[] bytes = new byte[all.readableBytes()];
        all.readBytes(bytes);
        return bytes;
    }

    @Test
    void replacesTheAnnouncedAddressWithTheCallersProxyAndKeepsLaterBytes() {
        EmbeddedChannel channel = new EmbeddedChannel(
                new ElectionAddressRewriter(id -> id == 2 ? "127.0.0.1:40002" : null));
        ByteBuf input = handshake(ElectionAddressRewriter.PROTOCOL_VERSION_V1, 2, "127.0.0.1:31234");
        input.writeBytes(new byte[] {9, 8, 7});
        // Deliver in pieces: the header must be reassembled.
        channel.writeInbound(input.readRetainedSlice(11));
        channel.writeInbound(input.readRetainedSlice(input.readableBytes()));
        input.release();
        channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {6}));
        ByteBuf expected = handshake(ElectionAddressRewriter.PROTOCOL_VERSION_V1, 2, "127.0.0.1:40002")
                .writeBytes(new byte[] {9, 8, 7, 6});
        byte[] expectedBytes = new byte[expected.readableBytes()];
        expected.readBytes(expectedBytes);
        assertArrayEqualsHex(expectedBytes, drain(channel));
        assertNull(channel.pipeline().get(ElectionAddressRewriter.class), "rewriter should remove itself");
    }

    @Test
    void passesThroughWhatItDoesNotRecognize() {
        EmbeddedChannel channel = new EmbeddedChannel(new ElectionAddressRewriter(id -> "127.0.0.1:1"));
        ByteBuf input = Unpooled.buffer().writeLong(3).writeBytes(new byte[] {1, 2});
        byte[] sent = new byte[input.readableBytes()];
        input.getBytes(0, sent);
        channel.writeInbound(input);
        assertArrayEqualsHex(sent, drain(channel));
    }

    @Test
    void rejectsAnAbsurdAddressLength() {
        EmbeddedChannel channel = new EmbeddedChannel(new ElectionAddressRewriter(id -> "127.0.0.1:1"));
        ByteBuf input = Unpooled.buffer().writeLong(ElectionAddressRewriter.PROTOCOL_VERSION_V2).writeLong(1)
                .writeInt(1 << 20);
        assertThrows(DecoderException.class, () -> channel.writeInbound(input));
    }

    private static void assertArrayEqualsHex(byte[] expected, byte[] actual) {
        assertEquals(io.netty.buffer.ByteBufUtil.hexDump(expected), io.netty.buffer.ByteBufUtil.hexDump(actual));
    }
}
