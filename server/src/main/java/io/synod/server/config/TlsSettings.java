package io.synod.server.config;

import io.synod.client.TlsFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A server's TLS setting: the PEM files of its identity ({@code tls.ca}, {@code tls.cert}, {@code tls.key};
 * see docs/security.md), or {@code insecure=true}. A server with neither refuses to start: running
 * without authentication must be chosen, never fallen into.
 */
public record TlsSettings(boolean insecure, TlsFiles files) {
    /** The one-line refusal of a configuration with neither TLS files nor {@code insecure=true}. */
    public static final String NEITHER = "no TLS configured: set tls.ca, tls.cert and tls.key (synod cert create-node "
            + "writes them), or insecure=true to run without authentication";

    public TlsSettings {
        if (insecure == (files != null)) {
            throw new IllegalArgumentException(insecure ? "insecure with TLS files" : NEITHER);
        }
    }

    public static TlsSettings insecureSetting() {
        return new TlsSettings(true, null);
    }

    public static TlsSettings of(TlsFiles files) {
        return new TlsSettings(false, files);
    }

    static void addKeys(Map<String, String[]> k) {
        k.put("insecure", new String[] {"false", "true: no TLS, no authentication on the peer and client ports "
                + "(warned at every start); false: tls.ca, tls.cert and tls.key are required"});
        k.put("tls.ca", new String[] {"-", "PEM file of the cluster CA certificate that peers and clients must chain to"});
        k.put("tls.cert", new String[] {"-", "PEM file of this node's certificate (CN=node-<id>, OU=node, O=<cluster>)"});
        k.put("tls.key", new String[] {"-", "PEM file (PKCS#8) of this node's private key"});
        k.put("tls.protocols", new String[] {"TLSv1.3", "TLS versions accepted: TLSv1.3, or TLSv1.3,TLSv1.2"});
    }

    static TlsSettings parse(Properties p) throws ConfigException {
        String insecure = p.getProperty("insecure", "false").trim();
        if (!insecure.equals("true") && !insecure.equals("false")) {
            throw new ConfigException("insecure: must be true or false, got '" + insecure + "'");
        }
        String ca = file(p, "tls.ca");
        String cert = file(p, "tls.cert");
        String key = file(p, "tls.key");
        boolean any = ca != null || cert != null || key != null;
        if (insecure.equals("true")) {
            if (any) {
                throw new ConfigException("insecure=true but tls.* files are set: choose one");
            }
            return insecureSetting();
        }
        if (!any) {
            throw new ConfigException(NEITHER);
        }
        if (ca == null || cert == null || key == null) {
            throw new ConfigException("tls.ca, tls.cert and tls.key must all be set (missing: "
                    + (ca == null ? "tls.ca " : "") + (cert == null ? "tls.cert " : "") + (key == null ? "tls.key" : "")
                    + ")");
        }
        List<String> protocols = new ArrayList<>();
        for (String s : p.getProperty("tls.protocols", "TLSv1.3").split(",")) {
            protocols.add(s.trim());
        }
        try {
            return of(new TlsFiles(Path.of(ca), Path.of(cert), Path.of(key), protocols));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("tls.protocols: " + e.getMessage());
        }
    }

    private static String file(Properties p, String key) {
        String v = p.getProperty(key, "").trim();
        return v.isEmpty() || v.equals("-") ? null : v;
    }

    /** The properties text of this setting. */
    String toProperties() {
        if (insecure) {
            return "insecure=true\n";
        }
        return "tls.ca=" + files.ca() + "\ntls.cert=" + files.cert() + "\ntls.key=" + files.key() + "\ntls.protocols="
                + String.join(",", files.protocols()) + "\n";
    }
}
