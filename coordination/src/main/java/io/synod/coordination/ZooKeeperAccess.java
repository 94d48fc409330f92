package io.synod.coordination;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

/**
 * How one ZooKeeper session identifies itself and reaches the ensemble: a digest identity (user and
 * secret) or none, and ZooKeeper client properties (TLS: {@code zookeeper.client.secure},
 * {@code zookeeper.ssl.*}) given to that session's own {@code ZKClientConfig}, never to JVM system
 * properties (docs/security.md, "A ZooKeeper client").
 *
 * <p>Digest, not SASL or x509: it needs nothing configured on the ZooKeeper servers (the digest
 * provider is always on), works the same over a plain or a TLS link, and is one secret per cluster.
 * A session with an identity creates every znode of {@code /synod/<cluster>} writable by that
 * identity only and readable by anyone ({@link ClusterAcls}).
 *
 * @param user             digest user name, or null for no identity (znodes stay {@code world:anyone})
 * @param secret           the digest password (null exactly when {@code user} is)
 * @param clientProperties ZooKeeper client properties of this session (TLS), possibly empty
 */
public record ZooKeeperAccess(String user, String secret, Map<String, String> clientProperties) {
    /** Shortest accepted secret: a guessable secret could be found offline from the digest in any ACL. */
    public static final int MIN_SECRET_LENGTH = 16;
    private static final int MAX_SECRET_LENGTH = 1024;

    public ZooKeeperAccess {
        if ((user == null) != (secret == null)) {
            throw new IllegalArgumentException("a ZooKeeper identity needs both a user and a secret");
        }
        if (user != null) {
            validUser(user);
            validSecret(secret, "ZooKeeper secret");
        }
        clientProperties = Map.copyOf(clientProperties);
    }

    /** No identity, default client properties: what readers (the SDK's discovery) and open clusters use. */
    public static ZooKeeperAccess open() {
        return new ZooKeeperAccess(null, null, Map.of());
    }

    /** The digest identity {@code user} with password {@code secret}. */
    public static ZooKeeperAccess digest(String user, String secret) {
        return new ZooKeeperAccess(user, secret, Map.of());
    }

    /** The same identity with these ZooKeeper client properties (replacing any before). */
    public ZooKeeperAccess withClientProperties(Map<String, String> properties) {
        return new ZooKeeperAccess(user, secret, properties);
    }

    public boolean authenticated() {
        return user != null;
    }

    /** The ACL id of this identity: {@code digest:<user>:<base64 sha1(user:secret)>}, as ZooKeeper stores it. */
    Id id() {
        if (!authenticated()) {
            throw new IllegalStateException("no ZooKeeper identity");
        }
        try {
            return new Id("digest", DigestAuthenticationProvider.generateDigest(user + ":" + secret));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("ZooKeeper digest algorithm unavailable: " + e.getMessage(), e);
        }
    }

    /** What {@code addauth digest} sends: {@code user:secret}. */
    byte[] authData() {
        return (user + ":" + secret).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Every znode of the cluster: all permissions for this identity, read for anyone. A mutable list's
     * unmodifiable view: ZooKeeper asks the list whether it contains null, which {@code List.of} answers by throwing.
     */
    List<ACL> clusterAcl() {
        return Collections.unmodifiableList(new ArrayList<>(List.of(new ACL(ZooDefs.Perms.ALL, id()),
                new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE))));
    }

    /** Describes the identity without its secret (the record's own toString would print it). */
    @Override
    public String toString() {
        return (authenticated() ? "digest:" + user : "no identity") + (clientProperties.isEmpty() ? ""
                : ", client properties " + new TreeMap<>(clientProperties).keySet());
    }

    /**
     * Reads a secret file: one line, {@value #MIN_SECRET_LENGTH}..1024 printable ASCII characters without
     * spaces (a trailing newline is ignored), readable and writable by its owner only (mode 0600 or 0400)
     * where the file system has POSIX permissions.
     *
     * @throws IllegalArgumentException one line naming the file and the fault
     */
    public static String readSecret(Path file) {
        try {
            if (!Files.isRegularFile(file)) {
                throw new IllegalArgumentException("ZooKeeper secret file " + file + " does not exist or is not a file");
            }
            PosixFileAttributeView posix = Files.getFileAttributeView(file, PosixFileAttributeView.class,
                    LinkOption.NOFOLLOW_LINKS);
            if (posix != null) {
                Set<PosixFilePermission> perms = posix.readAttributes().permissions();
                for (PosixFilePermission p : perms) {
                    if (p.name().startsWith("GROUP") || p.name().startsWith("OTHERS")) {
                        throw new IllegalArgumentException("ZooKeeper secret file " + file + " is readable by others "
                                + "(mode " + mode(perms) + "): run chmod 600 " + file);
                    }
                }
            }
            String text = Files.readString(file, StandardCharsets.UTF_8);
            String secret = text.endsWith("\r\n") ? text.substring(0, text.length() - 2)
                    : text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
            validSecret(secret, "ZooKeeper secret file " + file);
            return secret;
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read ZooKeeper secret file " + file + ": " + e.getMessage(), e);
        }
    }

    private static String mode(Set<PosixFilePermission> perms) {
        int m = 0;
        for (PosixFilePermission p : perms) {
            m |= 1 << (8 - p.ordinal()); // OWNER_READ is ordinal 0 (0400) ... OTHERS_EXECUTE is 8 (0001)
        }
        return String.format("%04o", m);
    }

    private static void validUser(String user) {
        if (!user.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new IllegalArgumentException("ZooKeeper user must be 1..64 of [A-Za-z0-9._-], got '" + user + "'");
        }
    }

    private static void validSecret(String secret, String what) {
        if (secret.length() < MIN_SECRET_LENGTH || secret.length() > MAX_SECRET_LENGTH) {
            throw new IllegalArgumentException(what + " must hold " + MIN_SECRET_LENGTH + ".." + MAX_SECRET_LENGTH
                    + " characters on one line, found " + secret.length());
        }
        for (int i = 0; i < secret.length(); i++) {
            char c = secret.charAt(i);
            if (c <= ' ' || c > '~') {
                throw new IllegalArgumentException(what + " must be printable ASCII without spaces (one line), found a "
                        + "character 0x" + Integer.toHexString(c) + " at " + i);
            }
        }
    }
}
