package io.synod.server.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.synod.client.TlsFiles;
import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Message;
import io.synod.server.node.LocalCluster;
import io.synod.server.transport.PeerNetwork;
import io.synod.server.wire.WireCodec;
import io.synod.server.wire.WireFrame;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The peer port with mTLS, over real sockets (docs/security.md): a connection without a certificate of
 * the cluster CA, or whose certificate names another node than its Hello claims, is closed before any
 * frame reaches a group (here: the inbound consumer node 2's groups would read from).
 */
@Timeout(60)
class PeerTlsTest {
    @TempDir
    Path dir;

    final List<WireFrame.PeerMessage> delivered = new CopyOnWriteArrayList<>();
    PeerNetwork node2;
    InetSocketAddress address;

    @BeforeEach
    void start() throws Exception {
        TlsTestSupport.ca(dir);
        Map<Integer, InetSocketAddress> peers = Map.of(0, free(), 1, free(), 2, free());
        node2 = new PeerNetwork(2, TlsTestSupport.CLUSTER, peers, 1 << 20, 1 << 22, 1, delivered::add,
                TlsTestSupport.policy(TlsFiles.node(dir, 2)));
        address = node2.start(peers.get(2));
    }

    @AfterEach
    void stop() {
        node2.close();
    }

    static InetSocketAddress free() throws IOException {
        return new InetSocketAddress("127.0.0.1", LocalCluster.freePort());
    }

    static void send(OutputStream out, WireFrame... frames) throws IOException {
        DataOutputStream d = new DataOutputStream(out);
        for (WireFrame f : frames) {
            byte[] body = WireCodec.encode(f);
            d.writeInt(body.length);
            d.write(body);
        }
        d.flush();
    }

    static WireFrame.PeerMessage heartbeat(int from, int to) {
        return new WireFrame.PeerMessage(0, new Message.Heartbeat(from, to, new Ballot(1, from), 0));
    }

    /** Reads until the server closes: -1 (or a reset) within the socket timeout. */
    static void assertClosedByServer(Socket s) {
        try {
            InputStream in = s.getInputStream();
            assertEquals(-1, in.read(), "the server sends nothing on a peer connection");
        } catch (IOException closed) {
            // A reset or a failed TLS handshake: closed as well.
        }
    }

    /** A client of {@code context} says Hello as node 0: the server refuses the handshake and delivers nothing. */
    void assertRefusedInTheHandshake(SSLContext context) throws Exception {
        try (SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket(address.getAddress(), address.getPort())) {
            s.setSoTimeout(10_000);
            // TLS 1.3: the client may finish its side first; then the refusal arrives on the first read, or, when
            // the server has already closed, on the write before it (a broken pipe or reset, not a TLS alert).
            try {
                s.startHandshake();
                send(s.getOutputStream(), new WireFrame.Hello(0, TlsTestSupport.CLUSTER), heartbeat(0, 2));
                int got = s.getInputStream().read();
                fail("the server did not refuse the connection: the first read gave " + got);
            } catch (SSLException | SocketException refused) {
                // Refused during the handshake itself, or the connection closed by the server.
            }
        }
        assertTrue(delivered.isEmpty(), "nothing reached the groups");
    }

    @Test
    void plainTcpWithoutCertificateIsClosedAndNothingIsDelivered() throws Exception {
        try (Socket s = new Socket(address.getAddress(), address.getPort())) {
            s.setSoTimeout(10_000);
            send(s.getOutputStream(), new WireFrame.Hello(0, TlsTestSupport.CLUSTER), heartbeat(0, 2));
            assertClosedByServer(s);
        }
        assertTrue(delivered.isEmpty(), "no frame from a connection without TLS reached the groups");
    }

    @Test
    void tlsWithoutClientCertificateFailsTheHandshake() throws Exception {
        // Trusts the CA but presents no certificate: the server requires one.
        TlsFiles ca = TlsFiles.node(dir, 0);
        SSLContext noCert = ((JdkSslContext) SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
                .trustManager(ca.ca().toFile()).protocols("TLSv1.3").build()).context();
        assertRefusedInTheHandshake(noCert);
    }

    @Test
    void node1CertificateClaimingNode0IsClosedButClaimingItselfIsServed() throws Exception {
        try (SSLSocket s = TlsTestSupport.connect(TlsFiles.node(dir, 1), address)) {
            send(s.getOutputStream(), new WireFrame.Hello(0, TlsTestSupport.CLUSTER), heartbeat(0, 2));
            assertClosedByServer(s);
        }
        assertTrue(delivered.isEmpty(), "the forged Hello delivered nothing");
        // Control: the same certificate saying who it is gets through, so the refusal above is the check's.
        try (SSLSocket s = TlsTestSupport.connect(TlsFiles.node(dir, 1), address)) {
            send(s.getOutputStream(), new WireFrame.Hello(1, TlsTestSupport.CLUSTER), heartbeat(1, 2));
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (delivered.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        }
        assertEquals(1, delivered.size());
        assertEquals(1, delivered.get(0).message().from());
    }

    @Test
    void aClientCertificateIsNotANode() throws Exception {
        try (SSLSocket s = TlsTestSupport.connect(TlsFiles.client(dir, "alice"), address)) {
            send(s.getOutputStream(), new WireFrame.Hello(0, TlsTestSupport.CLUSTER), heartbeat(0, 2));
            assertClosedByServer(s);
        }
        assertTrue(delivered.isEmpty());
    }

    @Test
    void anotherClustersCaIsRefused() throws Exception {
        Path other = dir.resolve("other");
        CertificateAuthority.create(other, TlsTestSupport.CLUSTER).createNode(0, TlsTestSupport.CLUSTER, List.of());
        TlsFiles foreign = new TlsFiles(dir.resolve(TlsFiles.CA_CERT), TlsFiles.node(other, 0).cert(),
                TlsFiles.node(other, 0).key(), TlsFiles.TLS13);
        assertRefusedInTheHandshake(foreign.jdkClientContext());
    }
}
