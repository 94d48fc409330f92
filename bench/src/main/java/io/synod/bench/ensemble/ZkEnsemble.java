package io.synod.bench.ensemble;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.synod.bench.netdelay.DelayProxy;
import io.synod.bench.netdelay.DelaySpec;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A real ZooKeeper ensemble of 1, 3 or 5 server JVMs on 127.0.0.1, with every server–server link and
 * every client link passing through a {@link DelayProxy}.
 *
 * <p>Wiring (see docs/lock-experiments.md): server {@code k} binds its real quorum and election ports.
 * In front of each server sit three proxies: quorum, election and client. Server {@code k}'s own
 * config file lists itself at its real addresses (that is what it binds) and every other server
 * {@code j} at {@code j}'s proxy addresses, so whatever {@code k} dials to reach {@code j} crosses
 * {@code j}'s proxy, which adds half the server–server RTT in each direction. This works because
 * ZooKeeper 3.9.5 with {@code reconfigEnabled=false} never replaces a server's own view with the
 * leader's ({@code QuorumPeer.processReconfig} returns early), so each server keeps its private config.
 * One more detail makes election links fully proxied: a server that accepts an election connection from
 * a lower id dials back to the address the caller announced (its real one), so the election proxies
 * rewrite that announcement to the caller's proxy ({@link ElectionAddressRewriter}).
 * Clients get the client proxies' addresses.
 *
 * <p>Each server is a separate JVM running {@code org.apache.zookeeper.server.quorum.QuorumPeerMain}
 * with this JVM's {@code java.class.path}. Children are destroyed by {@link #close()} and, should this
 * JVM exit without it, by a shutdown hook.
 */
public final class ZkEnsemble implements AutoCloseable {

    private static final String QUORUM_PEER_MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain";

    private final EnsembleOptions options;
    private final Path baseDir;
    private final boolean ownsBaseDir;
    private final EventLoopGroup proxyGroup = new NioEventLoopGroup(1);
    private final List<ServerNode> servers = new ArrayList<>();
    private final Thread shutdownHook;
    private volatile Duration clientRtt;
    private volatile Duration serverRtt;
    private boolean closed;

    /** One server JVM and the proxies in front of it. */
    public static final class ServerNode {
        final int myId;
        final int clientPort;
        final int quorumPort;
        final int electionPort;
        final Path dir;
        DelayProxy clientProxy;
        DelayProxy quorumProxy;
        DelayProxy electionProxy;
        Process process;

        ServerNode(int myId, int clientPort, int quorumPort, int electionPort, Path dir) {
            this.myId = myId;
            this.clientPort = clientPort;
            this.quorumPort = quorumPort;
            this.electionPort = electionPort;
            this.dir = dir;
        }

        public int myId() {
            return myId;
        }

        public int clientPort() {
            return clientPort;
        }

        public DelayProxy clientProxy() {
            return clientProxy;
        }

        public DelayProxy quorumProxy() {
            return quorumProxy;
        }

        public DelayProxy electionProxy() {
            return electionProxy;
        }

        public Path dir() {
            return dir;
        }

        public long pid() {
            return process.pid();
        }
    }

    private ZkEnsemble(EnsembleOptions options) throws IOException {
        this.options = options;
        this.clientRtt = options.clientRtt();
        this.serverRtt = options.serverRtt();
        if (options.baseDir() != null) {
            this.baseDir = Files.createDirectories(options.baseDir());
            this.ownsBaseDir = false;
        } else {
            this.baseDir = Files.createTempDirectory("synod-zk-ensemble-");
            this.ownsBaseDir = true;
        }
        this.shutdownHook = new Thread(this::destroyProcesses, "zk-ensemble-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** Start the proxies and the server JVMs and wait until every server serves (leader elected). */
    public static ZkEnsemble start(EnsembleOptions options) throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            ZkEnsemble ensemble = new ZkEnsemble(options);
            try {
                ensemble.startAll();
                return ensemble;
            } catch (PortTakenException e) {
                // Another process bound a chosen port between its release and the server's bind.
                ensemble.close();
                if (attempt == START_ATTEMPTS) {
                    throw e;
                }
            } catch (IOException | InterruptedException | RuntimeException e) {
                ensemble.close();
                throw e;
            }
        }
    }

    private static final int START_ATTEMPTS = 3;

    /** A server could not bind its port: worth another attempt with fresh ports. */
    static final class PortTakenException extends IOException {
        private static final long serialVersionUID = 1L;

        PortTakenException(String message) {
            super(message);
        }
    }

    private void startAll() throws IOException, InterruptedException {
        int size = options.size();
        // The servers' ports stay reserved (bound) while the proxies pick their own ephemeral ports, so
        // a proxy can never take a server's port; they are released only just before the servers start.
        List<ServerSocket> reservations = reservePorts(3 * size);
        try {
            for (int k = 0; k < size; k++) {
                int myId = k + 1;
                Path dir = baseDir.resolve("server-" + myId);
                // A kept base dir may hold an earlier run's (or start attempt's) data: never mix it in.
                deleteRecursively(dir);
                Files.createDirectories(dir);
                servers.add(new ServerNode(myId, reservations.get(3 * k).getLocalPort(),
                        reservations.get(3 * k + 1).getLocalPort(), reservations.get(3 * k + 2).getLocalPort(), dir));
            }
            startProxies();
        } finally {
            for (ServerSocket socket : reservations) {
                socket.close();
            }
        }
        launchServers();
    }

    private void startProxies() throws InterruptedException {
        DelaySpec clientHalf = DelaySpec.halfOfRtt(clientRtt);
        DelaySpec serverHalf = DelaySpec.halfOfRtt(serverRtt);
        long seed = options.seed();
        for (ServerNode node : servers) {
            node.clientProxy = proxy("client-" + node.myId, node.clientPort, clientHalf, seed++);
            node.quorumProxy = proxy("quorum-" + node.myId, node.quorumPort, serverHalf, seed++);
            node.electionProxy = DelayProxy.builder(new InetSocketAddress("127.0.0.1", node.electionPort))
                    .name("election-" + node.myId)
                    .eventLoopGroup(proxyGroup)
                    .delays(serverHalf, serverHalf)
                    .seed(seed++)
                    .toTargetRewriter(() -> new ElectionAddressRewriter(this::electionProxyAddress))
                    .start();
        }
    }

    private void launchServers() throws IOException, InterruptedException {
        Path logbackConfig = baseDir.resolve("logback-server.xml");
        Files.writeString(logbackConfig, SERVER_LOGBACK_XML, StandardCharsets.UTF_8);
        for (ServerNode node : servers) {
            Path dataDir = Files.createDirectories(node.dir.resolve("data"));
            Files.writeString(dataDir.resolve("myid"), Integer.toString(node.myId), StandardCharsets.US_ASCII);
            Path config = node.dir.resolve("zoo.cfg");
            Files.writeString(config, configFor(node, dataDir), StandardCharsets.UTF_8);
            node.process = launch(node, config, logbackConfig);
        }
        awaitServing(options.startTimeout());
    }

    private DelayProxy proxy(String name, int targetPort, DelaySpec half, long seed) throws InterruptedException {
        return DelayProxy.builder(new InetSocketAddress("127.0.0.1", targetPort))
                .name(name)
                .eventLoopGroup(proxyGroup)
                .delays(half, half)
                .seed(seed)
                .start();
    }

    /** "127.0.0.1:port" of server {@code myId}'s election proxy, or null for an unknown id. */
    private String electionProxyAddress(long myId) {
        for (ServerNode node : servers) {
            if (node.myId == myId && node.electionProxy != null) {
                return "127.0.0.1:" + node.electionProxy.port();
            }
        }
        return null;
    }

    /** The zoo.cfg of one server: itself at its real addresses, every peer at that peer's proxies. */
    String configFor(ServerNode self, Path dataDir) {
        StringBuilder cfg = new StringBuilder();
        cfg.append("# Generated by io.synod.bench.ensemble.ZkEnsemble for server ").append(self.myId).append('\n');
        cfg.append("tickTime=").append(options.tickTimeMillis()).append('\n');
        cfg.append("initLimit=10\n");
        cfg.append("syncLimit=5\n");
        cfg.append("dataDir=").append(dataDir.toAbsolutePath()).append('\n');
        cfg.append("clientPortAddress=127.0.0.1\n");
        cfg.append("clientPort=").append(self.clientPort).append('\n');
        // Each server must keep its own view of the peers (proxied addresses): see class comment.
        cfg.append("reconfigEnabled=false\n");
        cfg.append("standaloneEnabled=true\n");
        cfg.append("admin.enableServer=false\n");
        cfg.append("4lw.commands.whitelist=srvr,ruok\n");
        cfg.append("maxClientCnxns=0\n");
        // Becomes the system property zookeeper.forceSync: off measures the network cost, not this disk.
        cfg.append("forceSync=").append(options.forceSync() ? "yes" : "no").append('\n');
        if (servers.size() > 1) {
            for (ServerNode peer : servers) {
                int quorum = peer == self ? peer.quorumPort : peer.quorumProxy.port();
                int election = peer == self ? peer.electionPort : peer.electionProxy.port();
                cfg.append("server.").append(peer.myId).append("=127.0.0.1:").append(quorum).append(':')
                        .append(election).append(":participant\n");
            }
        }
        return cfg.toString();
    }

    private Process launch(ServerNode node, Path config, Path logbackConfig) throws IOException {
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(
                javaBin,
                "-Xms32m", "-Xmx" + options.serverHeapMegabytes() + "m",
                // Serial GC: fewest threads, which matters with several JVMs on two cores.
                "-XX:+UseSerialGC",
                "-Djava.awt.headless=true",
                "-Dlogback.configurationFile=" + logbackConfig.toAbsolutePath(),
                "-Dzookeeper.log.dir=" + node.dir.toAbsolutePath(),
                "-Dzookeeper.jmx.log4j.disable=true",
                "-cp", absoluteClassPath(),
                QUORUM_PEER_MAIN,
                config.toAbsolutePath().toString()));
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(node.dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(node.dir.resolve("server.out").toFile());
        return builder.start();
    }

    /** This JVM's class path with every entry made absolute: the children run in their own directories. */
    static String absoluteClassPath() {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !entry.isEmpty())
                .map(entry -> entry.endsWith("*")
                        ? Path.of(entry.substring(0, entry.length() - 1)).toAbsolutePath() + File.separator + "*"
                        : Path.of(entry).toAbsolutePath().toString())
                .collect(Collectors.joining(File.pathSeparator));
    }

    private void awaitServing(Duration timeout) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (ServerNode node : servers) {
            while (true) {
                if (!node.process.isAlive()) {
                    String output = tail(node.dir.resolve("server.out"), 30);
                    String message = "ZooKeeper server " + node.myId + " exited with " + node.process.exitValue()
                            + "; last output:\n" + output;
                    throw output.contains("Address already in use") ? new PortTakenException(message)
                            : new IOException(message);
                }
                Optional<String> mode = mode(node);
                if (mode.isPresent()) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException("ZooKeeper server " + node.myId + " not serving after " + timeout
                            + "; last output:\n" + tail(node.dir.resolve("server.out"), 30));
                }
                Thread.sleep(200);
            }
        }
    }

    /** The server's mode from the "srvr" four-letter word (leader, follower, standalone), if it serves. */
    public Optional<String> mode(ServerNode node) {
        return serverMode("127.0.0.1", node.clientPort, 1000, 2000);
    }

    /**
     * The mode (leader, follower, standalone) that the ZooKeeper server at {@code host:port} reports to
     * "srvr", or empty if it does not answer within the timeouts, is not serving, or has srvr disabled.
     */
    public static Optional<String> serverMode(String host, int port, int connectTimeoutMillis, int readTimeoutMillis) {
        String answer;
        try {
            answer = fourLetterWord(host, port, "srvr", connectTimeoutMillis, readTimeoutMillis);
        } catch (IOException | UncheckedIOException e) {
            return Optional.empty();
        }
        for (String line : answer.split("\n")) {
            if (line.startsWith("Mode: ")) {
                return Optional.of(line.substring("Mode: ".length()).trim());
            }
        }
        return Optional.empty();
    }

    private static String fourLetterWord(String host, int port, String word, int connectTimeoutMillis,
                                         int readTimeoutMillis) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), connectTimeoutMillis);
            socket.setSoTimeout(readTimeoutMillis);
            OutputStream out = socket.getOutputStream();
            out.write(word.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            try (BufferedReader reader = new BufferedReader(
                    new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))) {
                return reader.lines().limit(200).collect(Collectors.joining("\n"));
            }
        }
    }

    /** Index (0-based) of the current leader, or of the only server when standalone. */
    public int leaderIndex() {
        for (int k = 0; k < servers.size(); k++) {
            Optional<String> mode = mode(servers.get(k));
            if (mode.isPresent() && (mode.get().equals("leader") || mode.get().equals("standalone"))) {
                return k;
            }
        }
        throw new IllegalStateException("no leader found");
    }

    /** Index of a server that is not the leader (the leader itself when the ensemble has one server). */
    public int followerIndex() {
        int leader = leaderIndex();
        return servers.size() == 1 ? leader : (leader + 1) % servers.size();
    }

    /** Connect string through the client proxies of all servers. */
    public String connectString() {
        return servers.stream().map(n -> "127.0.0.1:" + n.clientProxy.port()).collect(Collectors.joining(","));
    }

    /** Connect string through the client proxy of one server only. */
    public String connectString(int serverIndex) {
        return "127.0.0.1:" + servers.get(serverIndex).clientProxy.port();
    }

    /** Connect string that bypasses the client proxies (for setup and checks). */
    public String directConnectString() {
        return servers.stream().map(n -> "127.0.0.1:" + n.clientPort).collect(Collectors.joining(","));
    }

    /** Set the client–server round-trip time: half of it is added in each direction. */
    public void setClientRtt(Duration rtt) {
        clientRtt = rtt;
        DelaySpec half = DelaySpec.halfOfRtt(rtt);
        for (ServerNode node : servers) {
            node.clientProxy.setDelays(half, half);
        }
    }

    /** Set the server–server round-trip time on quorum and election links. */
    public void setServerRtt(Duration rtt) {
        serverRtt = rtt;
        DelaySpec half = DelaySpec.halfOfRtt(rtt);
        for (ServerNode node : servers) {
            node.quorumProxy.setDelays(half, half);
            node.electionProxy.setDelays(half, half);
        }
    }

    public Duration clientRtt() {
        return clientRtt;
    }

    public Duration serverRtt() {
        return serverRtt;
    }

    public List<ServerNode> servers() {
        return List.copyOf(servers);
    }

    public int size() {
        return servers.size();
    }

    public Path baseDir() {
        return baseDir;
    }

    private void destroyProcesses() {
        for (ServerNode node : servers) {
            if (node.process != null && node.process.isAlive()) {
                node.process.destroy();
            }
        }
        for (ServerNode node : servers) {
            if (node.process == null) {
                continue;
            }
            try {
                if (!node.process.waitFor(5, TimeUnit.SECONDS)) {
                    node.process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                node.process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        destroyProcesses();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // The hook is running or has run; nothing to remove.
        }
        for (ServerNode node : servers) {
            for (DelayProxy proxy : new DelayProxy[] {node.clientProxy, node.quorumProxy, node.electionProxy}) {
                if (proxy != null) {
                    proxy.close();
                }
            }
        }
        proxyGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        if (ownsBaseDir && !options.keepFiles()) {
            deleteRecursively(baseDir);
        }
    }

    /** Binds {@code count} distinct free ports on 127.0.0.1; the caller closes them to hand them on. */
    private static List<ServerSocket> reservePorts(int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket();
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress("127.0.0.1", 0));
                sockets.add(socket);
            }
            return sockets;
        } catch (IOException e) {
            for (ServerSocket socket : sockets) {
                socket.close();
            }
            throw e;
        }
    }

    private static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    private static void deleteRecursively(Path root) {
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // Leftovers in the temp dir are harmless; do not fail a finished run over them.
        }
    }

    private static final String SERVER_LOGBACK_XML = """
            <configuration>
              <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
                <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{36} - %msg%n</pattern></encoder>
              </appender>
              <root level="WARN"><appender-ref ref="STDOUT"/></root>
            </configuration>
            """;
}
