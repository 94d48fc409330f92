package io.synod.server.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.client.TlsFiles;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientFrameCodec;
import io.synod.server.client.ClientServer;
import io.synod.server.node.LocalCluster;
import io.synod.server.transport.ConnectionPolicy;
import io.synod.server.transport.PeerNetwork;
import io.synod.server.wire.WireCodec;
import io.synod.server.wire.WireFrame;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The network limits over real sockets (docs/security.md, "Limits"): connection caps on the client
 * port, the frame timeout and the node-wide budget for partially received frames, the client frame
 * limit, and certificates reloaded when their files change.
 */
@Timeout(120)
class ConnectionLimitsTest {
    @TempDir
    Path dir;

    static final ClientServer.Handler STATUS_ONLY = new ClientServer.Handler() {
        @Override
        public void onCommand(ClientFrame.Command command, java.util.function.Consumer<ClientFrame.Response> respond) {
            respond.accept(new ClientFrame.Response(command.requestId(), 0, ClientFrame.STATUS_NO_GROUP, 0,
                    -1, new byte[0]));
        }

        @Override
        public ClientFrame.StatusReport status(long requestId) {
            return new ClientFrame.StatusReport(requestId, 7, List.of());
        }
    };

    static InetSocketAddress local() throws IOException {
        return new InetSocketAddress("127.0.0.1", LocalCluster.freePort());
    }

    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting: " + what);
            Thread.sleep(5);
        }
    }

    static ClientFrame call(Socket s, ClientFrame request) throws IOException {
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        byte[] body = ClientFrameCodec.encode(request);
        out.writeInt(body.length);
        out.write(body);
        out.flush();
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] reply = new byte[in.readInt()];
        in.readFully(reply);
        try {
            return ClientFrameCodec.decode(reply);
        } catch (IllegalArgumentException e) {
            throw new IOException(e);
        }
    }

    /** True when the server closed {@code s} (end of stream or reset) within its read timeout. */
    static boolean closedByServer(Socket s) {
        try {
            return s.getInputStream().read() == -1;
        } catch (IOException reset) {
            return !(reset instanceof java.net.SocketTimeoutException);
        }
    }

    @Test
    void overCapConnectionsAreRefusedWhileAServedClientKeepsWorking() throws Exception {
        TlsTestSupport.ca(dir);
        TlsFiles client = TlsFiles.client(dir, "alice");
        ConnectionPolicy policy = TlsTestSupport.policy(TlsFiles.node(dir, 0), "client.max.connections=20");
        try (ClientServer server = new ClientServer(16 << 20, 64, 1, STATUS_ONLY, policy)) {
            InetSocketAddress address = server.start(local());
            try (SSLSocket served = TlsTestSupport.connect(client, address)) {
                assertEquals(7, ((ClientFrame.StatusReport) call(served, new ClientFrame.StatusQuery(1))).nodeId());
                List<Socket> flood = new ArrayList<>();
                try {
                    for (int i = 0; i < 60; i++) {
                        Socket s = new Socket(address.getAddress(), address.getPort());
                        s.setSoTimeout(200);
                        flood.add(s);
                    }
                    await(() -> server.limiter().refused() >= 41, "the 41 connections over the cap of 20 refused");
                    assertEquals(20, server.limiter().open(), "the cap holds");
                    int closed = 0;
                    for (Socket s : flood) {
                        closed += closedByServer(s) ? 1 : 0;
                    }
                    assertEquals(41, closed, "every connection over the cap is closed; those under it stay open");
                    assertEquals(7, ((ClientFrame.StatusReport) call(served, new ClientFrame.StatusQuery(2))).nodeId(),
                            "the client connected before the flood is still served");
                } finally {
                    for (Socket s : flood) {
                        s.close();
                    }
                }
            }
        }
    }

    @Test
    void perAddressCapRefusesTheSurplusFromOneAddress() throws Exception {
        ConnectionPolicy policy = TlsTestSupport.policy(null, "client.max.connections.per.address=5");
        try (ClientServer server = new ClientServer(16 << 20, 64, 1, STATUS_ONLY, policy)) {
            InetSocketAddress address = server.start(local());
            List<Socket> sockets = new ArrayList<>();
            try {
                for (int i = 0; i < 8; i++) {
                    sockets.add(new Socket(address.getAddress(), address.getPort()));
                }
                await(() -> server.limiter().refused() == 3, "3 refused");
                assertEquals(5, server.limiter().open());
            } finally {
                for (Socket s : sockets) {
                    s.close();
                }
            }
            await(() -> server.limiter().open() == 0, "closed connections are no longer counted");
            try (Socket again = new Socket(address.getAddress(), address.getPort())) {
                again.setSoTimeout(10_000);
                assertEquals(7, ((ClientFrame.StatusReport) call(again, new ClientFrame.StatusQuery(3))).nodeId(),
                        "the address may connect again once under its cap");
            }
        }
    }

    @Test
    void aClientFrameAboveTheClientLimitIsRefusedAtOnce() throws Exception {
        ConnectionPolicy policy = TlsTestSupport.policy(null);
        try (ClientServer server = new ClientServer(16 << 20, 64, 1, STATUS_ONLY, policy);
                Socket s = new Socket()) {
            InetSocketAddress address = server.start(local());
            s.connect(address);
            s.setSoTimeout(10_000);
            new DataOutputStream(s.getOutputStream()).writeInt(2 << 20); // Below the peer limit, above the client's.
            assertTrue(closedByServer(s));
            assertEquals(0, policy.budget().reserved());
        }
    }

    @Test
    void aStalled16MiBFrameIsClosedAfterTheFrameTimeoutAndItsBudgetReturns() throws Exception {
        ConnectionPolicy policy = TlsTestSupport.policy(null, "frame.timeout.ms=500");
        Map<Integer, InetSocketAddress> peers = Map.of(0, local(), 1, local());
        try (PeerNetwork net = new PeerNetwork(0, "c", peers, 16 << 20, 32 << 20, 1, m -> { }, policy);
                Socket s = new Socket()) {
            InetSocketAddress address = net.start(peers.get(0));
            s.connect(address);
            s.setSoTimeout(30_000);
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            byte[] hello = WireCodec.encode(new WireFrame.Hello(1, "c"));
            out.writeInt(hello.length);
            out.write(hello);
            out.writeInt(16 << 20);
            out.write(new byte[4096]);
            out.flush();
            long started = System.nanoTime();
            await(() -> policy.budget().reserved() == 16 << 20, "the stalled frame holds its length in the budget");
            assertTrue(closedByServer(s), "closed");
            long elapsedMillis = (System.nanoTime() - started) / 1_000_000;
            assertTrue(elapsedMillis >= 400, "closed by the timeout, not at once: " + elapsedMillis + " ms");
            await(() -> policy.budget().reserved() == 0, "the budget is released");
        }
    }

    @Test
    void framesBeyondTheNodeWideBudgetCloseTheirConnection() throws Exception {
        ConnectionPolicy policy = TlsTestSupport.policy(null, "frame.budget.bytes=" + (20 << 20));
        Map<Integer, InetSocketAddress> peers = Map.of(0, local(), 1, local());
        try (PeerNetwork net = new PeerNetwork(0, "c", peers, 16 << 20, 32 << 20, 1, m -> { }, policy);
                Socket first = new Socket();
                Socket second = new Socket()) {
            InetSocketAddress address = net.start(peers.get(0));
            first.connect(address);
            second.connect(address);
            first.setSoTimeout(300);
            second.setSoTimeout(10_000);
            new DataOutputStream(first.getOutputStream()).writeInt(15 << 20);
            await(() -> policy.budget().reserved() == 15 << 20, "the first partial frame is reserved");
            new DataOutputStream(second.getOutputStream()).writeInt(15 << 20);
            assertTrue(closedByServer(second), "the second does not fit: closed");
            assertTrue(!closedByServer(first), "the first is still open (read timed out)");
            assertEquals(15 << 20, policy.budget().reserved());
        }
    }

    @Test
    void newConnectionsPresentTheNewCertificateAfterTheFilesChange() throws Exception {
        TlsTestSupport.ca(dir);
        Path live = dir.resolve("live");
        Files.createDirectories(live);
        TlsFiles node = TlsFiles.node(dir, 0);
        TlsFiles served = new TlsFiles(node.ca(), live.resolve("node.crt"), live.resolve("node.key"), TlsFiles.TLS13);
        Files.copy(node.cert(), served.cert());
        Files.copy(node.key(), served.key());
        ConnectionPolicy policy = TlsTestSupport.policy(served);
        try (ClientServer server = new ClientServer(16 << 20, 64, 1, STATUS_ONLY, policy)) {
            InetSocketAddress address = server.start(local());
            TlsFiles client = TlsFiles.client(dir, "alice");
            X509Certificate before;
            try (SSLSocket s = TlsTestSupport.connect(client, address)) {
                before = (X509Certificate) s.getSession().getPeerCertificates()[0];
            }
            // A renewed certificate for the same node, signed by the same CA, copied over the served files.
            Path renewed = dir.resolve("renewed");
            Files.createDirectories(renewed);
            Files.copy(dir.resolve(TlsFiles.CA_CERT), renewed.resolve(TlsFiles.CA_CERT));
            Files.copy(dir.resolve(CertificateAuthority.CA_KEY), renewed.resolve(CertificateAuthority.CA_KEY));
            TlsFiles fresh = CertificateAuthority.open(renewed).createNode(0, TlsTestSupport.CLUSTER, List.of());
            Files.copy(fresh.key(), served.key(), StandardCopyOption.REPLACE_EXISTING);
            Files.copy(fresh.cert(), served.cert(), StandardCopyOption.REPLACE_EXISTING);
            X509Certificate after;
            try (SSLSocket s = TlsTestSupport.connect(client, address)) {
                after = (X509Certificate) s.getSession().getPeerCertificates()[0];
                assertEquals(7, ((ClientFrame.StatusReport) call(s, new ClientFrame.StatusQuery(1))).nodeId());
            }
            assertNotEquals(before.getSerialNumber(), after.getSerialNumber(), "the new connection got the new certificate");
            assertEquals(((X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509")
                    .generateCertificate(Files.newInputStream(fresh.cert()))).getSerialNumber(), after.getSerialNumber());
        }
    }
}
