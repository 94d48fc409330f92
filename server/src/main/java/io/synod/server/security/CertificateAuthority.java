package io.synod.server.security;

import io.synod.client.TlsFiles;
import java.io.IOException;
import java.io.StringWriter;
import java.io.Writer;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A small certificate authority in one directory: {@code ca.crt} and {@code ca.key}, and the node and
 * client certificates it signs ({@link TlsFiles#node}, {@link TlsFiles#client} name the files). Keys are
 * EC P-256, written as PKCS#8 PEM with mode 0600; certificates are PEM. Identities are bound in the
 * subject ({@link CertIdentity}). Nothing is overwritten: an existing file is an error.
 */
public final class CertificateAuthority {
    /** The CA key's file name. */
    public static final String CA_KEY = "ca.key";

    private static final Duration CA_VALIDITY = Duration.ofDays(3650);
    private static final Duration LEAF_VALIDITY = Duration.ofDays(825);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path dir;
    private final X509Certificate caCert;
    private final PrivateKey caKey;

    private CertificateAuthority(Path dir, X509Certificate caCert, PrivateKey caKey) {
        this.dir = dir;
        this.caCert = caCert;
        this.caKey = caKey;
    }

    /** Creates a new CA for {@code cluster} in {@code dir} (created if absent). */
    public static CertificateAuthority create(Path dir, String cluster) throws IOException {
        Files.createDirectories(dir);
        KeyPair kp = newKeyPair();
        X500Name name = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.O, cluster)
                .addRDN(BCStyle.CN, "Synod CA " + cluster).build();
        X509v3CertificateBuilder b = builder(name, name, kp, CA_VALIDITY);
        try {
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        X509Certificate cert = sign(b, kp.getPrivate());
        writeKey(dir.resolve(CA_KEY), kp.getPrivate());
        writeCert(dir.resolve(TlsFiles.CA_CERT), cert);
        return new CertificateAuthority(dir, cert, kp.getPrivate());
    }

    /** Opens the CA in {@code dir}. */
    public static CertificateAuthority open(Path dir) throws IOException {
        Path certFile = dir.resolve(TlsFiles.CA_CERT);
        Path keyFile = dir.resolve(CA_KEY);
        if (!Files.isRegularFile(certFile) || !Files.isRegularFile(keyFile)) {
            throw new IOException("no CA in " + dir + " (expected " + TlsFiles.CA_CERT + " and " + CA_KEY
                    + "; create one with: synod cert create-ca --dir " + dir + ")");
        }
        try (var in = Files.newInputStream(certFile)) {
            X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
            return new CertificateAuthority(dir, cert, readKey(keyFile));
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot read the CA in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Opens the CA in {@code dir}, creating it for {@code cluster} first if the directory has none. */
    public static CertificateAuthority openOrCreate(Path dir, String cluster) throws IOException {
        return Files.isRegularFile(dir.resolve(TlsFiles.CA_CERT)) ? open(dir) : create(dir, cluster);
    }

    /** The cluster this CA was created for (its subject's O). */
    public String cluster() {
        return CertIdentity.of(caCert).cluster();
    }

    public Path dir() {
        return dir;
    }

    /**
     * Signs node {@code nodeId}'s certificate for {@code cluster}, valid for server and client use,
     * with {@code hosts} (and localhost, 127.0.0.1) as subject alternative names.
     */
    public TlsFiles createNode(int nodeId, String cluster, List<String> hosts) throws IOException {
        List<GeneralName> names = new ArrayList<>();
        names.add(new GeneralName(GeneralName.dNSName, "localhost"));
        names.add(new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
        for (String h : hosts) {
            boolean ip = h.matches("[0-9.]+") || h.contains(":");
            names.add(new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, ip ? literal(h) : h));
        }
        TlsFiles files = TlsFiles.node(dir, nodeId);
        issue(files, CertIdentity.nodeName(nodeId), CertIdentity.NODE, cluster,
                new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth},
                new GeneralNames(names.toArray(new GeneralName[0])));
        return files;
    }

    /** Signs client {@code user}'s certificate for this CA's cluster. */
    public TlsFiles createClient(String user) throws IOException {
        TlsFiles files = TlsFiles.client(dir, user);
        issue(files, user, CertIdentity.CLIENT, cluster(), new KeyPurposeId[] {KeyPurposeId.id_kp_clientAuth}, null);
        return files;
    }

    private void issue(TlsFiles files, String cn, String role, String cluster, KeyPurposeId[] usages, GeneralNames sans)
            throws IOException {
        if (Files.exists(files.cert()) || Files.exists(files.key())) {
            throw new FileAlreadyExistsException(files.cert() + " or " + files.key() + " already exists; not overwritten");
        }
        KeyPair kp = newKeyPair();
        X500Name subject = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.O, cluster).addRDN(BCStyle.OU, role)
                .addRDN(BCStyle.CN, cn).build();
        X500Name issuer = X500Name.getInstance(caCert.getSubjectX500Principal().getEncoded());
        X509v3CertificateBuilder b = builder(issuer, subject, kp, LEAF_VALIDITY);
        try {
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement));
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(usages));
            if (sans != null) {
                b.addExtension(Extension.subjectAlternativeName, false, sans);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        writeKey(files.key(), kp.getPrivate());
        writeCert(files.cert(), sign(b, caKey));
    }

    private static String literal(String ip) {
        try {
            return InetAddress.getByName(ip).getHostAddress();
        } catch (IOException e) {
            throw new IllegalArgumentException("'" + ip + "' is not an IP address");
        }
    }

    private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair kp, Duration validity) {
        Instant now = Instant.now();
        return new JcaX509v3CertificateBuilder(issuer, new BigInteger(127, RANDOM), Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(validity)), subject, kp.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey key) {
        try {
            return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA")
                    .build(key)));
        } catch (OperatorCreationException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign a certificate: " + e.getMessage(), e);
        }
    }

    private static KeyPair newKeyPair() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("EC P-256 is not available: " + e.getMessage(), e);
        }
    }

    /** Writes a PKCS#8 PEM key, creating the file with mode 0600 before any key byte is in it. */
    private static void writeKey(Path file, PrivateKey key) throws IOException {
        String pem = "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(key.getEncoded())
                + "\n-----END PRIVATE KEY-----\n";
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            Files.createFile(file); // Not a POSIX file system: the directory's permissions protect it.
        }
        Files.writeString(file, pem, StandardCharsets.US_ASCII);
    }

    private static void writeCert(Path file, X509Certificate cert) throws IOException {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(text)) {
            w.writeObject(cert);
        }
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.US_ASCII,
                StandardOpenOption.CREATE_NEW)) {
            out.write(text.toString());
        }
    }

    private static PrivateKey readKey(Path file) throws IOException, GeneralSecurityException {
        String pem = Files.readString(file, StandardCharsets.US_ASCII);
        String body = pem.replace("-----BEGIN PRIVATE KEY-----", "").replace("-----END PRIVATE KEY-----", "")
                .replaceAll("\\s", "");
        return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body)));
    }
}
