package io.synod.server.config;

import io.synod.coordination.ZooKeeperAccess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * How a server reaches ZooKeeper beyond the connect string (docs/security.md, "A ZooKeeper client"): the
 * servers' digest identity ({@code zookeeper.auth.user} and a secret file, never the secret itself in the
 * configuration or on the command line) and optional TLS ({@code zookeeper.client.secure} and the
 * {@code zookeeper.ssl.*} keys, given to this node's ZooKeeper session only).
 *
 * <p>A server with neither a secret file nor {@code insecure=true} refuses to start, as for TLS on its own
 * ports: znodes anyone can write must be chosen, never fallen into.
 *
 * @param user       digest user of the servers' identity
 * @param secretFile file holding the secret, or null (only with {@code insecure=true}: znodes open to anyone)
 * @param secure     TLS to ZooKeeper
 * @param ssl        the {@code zookeeper.ssl.*} keys set (only with {@code secure})
 */
public record ZooKeeperSettings(String user, Path secretFile, boolean secure, Map<String, String> ssl) {
    /** The refusal of a configuration with neither a secret file nor {@code insecure=true}. */
    public static final String NO_SECRET = "zookeeper.auth.secret.file: required: a file (mode 0600) holding the servers' "
            + "ZooKeeper secret (synod cluster start writes DIR/zookeeper.secret; or: head -c 32 /dev/urandom | base64 "
            + "> zk.secret && chmod 600 zk.secret), or insecure=true to leave the cluster's znodes writable by any "
            + "ZooKeeper client";

    /** The ZooKeeper client's TLS keys passed through (ZooKeeper's own names; see its administrator's guide). */
    static final List<String> SSL_KEYS = List.of("zookeeper.ssl.keyStore.location", "zookeeper.ssl.keyStore.type",
            "zookeeper.ssl.keyStore.passwordPath", "zookeeper.ssl.trustStore.location", "zookeeper.ssl.trustStore.type",
            "zookeeper.ssl.trustStore.passwordPath", "zookeeper.ssl.protocol", "zookeeper.ssl.enabledProtocols",
            "zookeeper.ssl.hostnameVerification");

    /** Netty is ZooKeeper's only client socket that speaks TLS. */
    static final String NETTY_SOCKET = "org.apache.zookeeper.ClientCnxnSocketNetty";

    /** Name of the secret file in a local cluster's directory ({@code synod cluster start}, {@code synod demo}). */
    public static final String LOCAL_SECRET = "zookeeper.secret";

    public ZooKeeperSettings {
        ssl = Map.copyOf(ssl);
    }

    static void addKeys(Map<String, String[]> k) {
        k.put("zookeeper.auth.user", new String[] {"synod", "digest user of the servers' ZooKeeper identity"});
        k.put("zookeeper.auth.secret.file", new String[] {"-", "file (mode 0600) holding the servers' ZooKeeper secret: "
                + "the cluster's znodes are writable by this identity only, readable by anyone; required unless "
                + "insecure=true"});
        k.put("zookeeper.client.secure", new String[] {"false", "true: TLS to ZooKeeper (its secureClientPort), "
                + "configured by the zookeeper.ssl.* keys"});
        for (String key : SSL_KEYS) {
            k.put(key, new String[] {"-", "with zookeeper.client.secure=true: passed to this node's ZooKeeper client as is"});
        }
    }

    static ZooKeeperSettings parse(Properties p, boolean insecure) throws ConfigException {
        String user = p.getProperty("zookeeper.auth.user", "synod").trim();
        if (!user.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new ConfigException("zookeeper.auth.user: must be 1..64 of [A-Za-z0-9._-], got '" + user + "'");
        }
        String file = value(p, "zookeeper.auth.secret.file");
        if (file == null && !insecure) {
            throw new ConfigException(NO_SECRET);
        }
        String secure = p.getProperty("zookeeper.client.secure", "false").trim();
        if (!secure.equals("true") && !secure.equals("false")) {
            throw new ConfigException("zookeeper.client.secure: must be true or false, got '" + secure + "'");
        }
        Map<String, String> ssl = new LinkedHashMap<>();
        for (String key : SSL_KEYS) {
            String v = value(p, key);
            if (v != null) {
                ssl.put(key, v);
            }
        }
        if (secure.equals("false") && !ssl.isEmpty()) {
            throw new ConfigException(ssl.keySet().iterator().next() + ": set but zookeeper.client.secure=false");
        }
        try {
            return new ZooKeeperSettings(user, file == null ? null : Path.of(file), secure.equals("true"), ssl);
        } catch (RuntimeException e) {
            throw new ConfigException("zookeeper.auth.secret.file: '" + file + "' is not a valid path");
        }
    }

    private static String value(Properties p, String key) {
        String v = p.getProperty(key, "").trim();
        return v.isEmpty() || v.equals("-") ? null : v;
    }

    /**
     * The identity and client properties of this node's ZooKeeper session: reads the secret file and checks
     * that the files the TLS keys name are readable.
     *
     * @throws IllegalArgumentException one line naming the file and the fault
     */
    public ZooKeeperAccess access() {
        Map<String, String> properties = new LinkedHashMap<>();
        if (secure) {
            properties.put("zookeeper.client.secure", "true");
            properties.put("zookeeper.clientCnxnSocket", NETTY_SOCKET);
            for (Map.Entry<String, String> e : ssl.entrySet()) {
                if (e.getKey().endsWith(".location") || e.getKey().endsWith(".passwordPath")) {
                    Path f = Path.of(e.getValue());
                    if (!Files.isReadable(f) || !Files.isRegularFile(f)) {
                        throw new IllegalArgumentException(e.getKey() + ": " + f + " is not a readable file");
                    }
                }
                properties.put(e.getKey(), e.getValue());
            }
        }
        ZooKeeperAccess access = secretFile == null ? ZooKeeperAccess.open()
                : ZooKeeperAccess.digest(user, ZooKeeperAccess.readSecret(secretFile));
        return access.withClientProperties(properties);
    }

    /** The properties text of this setting. */
    String toProperties() {
        StringBuilder b = new StringBuilder("zookeeper.auth.user=" + user + "\nzookeeper.auth.secret.file="
                + (secretFile == null ? "-" : secretFile) + "\nzookeeper.client.secure=" + secure + "\n");
        ssl.forEach((k, v) -> b.append(k).append('=').append(v).append('\n'));
        return b.toString();
    }

    /**
     * Makes sure the local cluster in {@code clusterDir} has a ZooKeeper secret ({@value #LOCAL_SECRET}: 32
     * random bytes in base64, mode 0600), creating it on first use; returns its path.
     */
    public static Path ensureLocalSecret(Path clusterDir) throws IOException {
        Path file = clusterDir.toAbsolutePath().resolve(LOCAL_SECRET);
        if (Files.exists(file)) {
            return file;
        }
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        Files.createDirectories(clusterDir);
        try {
            // Created with mode 0600: the secret is never readable by others, not even for a moment.
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (FileAlreadyExistsException raced) {
            return file;
        } catch (UnsupportedOperationException notPosix) {
            Files.createFile(file);
        }
        Files.writeString(file, Base64.getEncoder().encodeToString(random) + "\n", StandardCharsets.US_ASCII);
        return file;
    }

    /** The {@code zookeeper.auth.*} server keys of the local cluster in {@code clusterDir}, as properties lines. */
    public static String localKeys(Path clusterDir) {
        return "zookeeper.auth.secret.file=" + clusterDir.toAbsolutePath().resolve(LOCAL_SECRET) + "\n";
    }
}
