package io.synod.server.security;

import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

/**
 * Who a certificate names. Synod binds identities in the subject: a node is
 * {@code CN=node-<id>, OU=node, O=<cluster>}, a client {@code CN=<user>, OU=client, O=<cluster>}
 * ({@link CertificateAuthority} writes them). The CA vouches for the subject, so a peer whose
 * certificate says node 1 is node 1, whatever its {@code Hello} claims.
 */
public record CertIdentity(String role, String name, String cluster) {
    public static final String NODE = "node";
    public static final String CLIENT = "client";

    /** The identity in {@code cert}'s subject; a certificate without CN, OU and O gives an identity naming none. */
    public static CertIdentity of(X509Certificate cert) {
        Map<String, String> rdn = new HashMap<>();
        try {
            for (Rdn r : new LdapName(cert.getSubjectX500Principal().getName()).getRdns()) {
                rdn.put(r.getType().toUpperCase(Locale.ROOT), String.valueOf(r.getValue()));
            }
        } catch (InvalidNameException e) {
            return new CertIdentity("", "", "");
        }
        return new CertIdentity(rdn.getOrDefault("OU", ""), rdn.getOrDefault("CN", ""), rdn.getOrDefault("O", ""));
    }

    /** The identity of the first (leaf) certificate a TLS peer presented. */
    public static CertIdentity of(Certificate[] chain) {
        if (chain == null || chain.length == 0 || !(chain[0] instanceof X509Certificate x)) {
            return new CertIdentity("", "", "");
        }
        return of(x);
    }

    /** The CN a node's certificate carries. */
    public static String nodeName(int nodeId) {
        return "node-" + nodeId;
    }

    /**
     * Why this identity is not node {@code nodeId} of {@code cluster}, or null if it is.
     */
    public String notNode(int nodeId, String expectedCluster) {
        if (!NODE.equals(role)) {
            return "certificate '" + name + "' is a " + (role.isEmpty() ? "non-Synod" : role) + " certificate, not a node's";
        }
        if (!expectedCluster.equals(cluster)) {
            return "certificate is for cluster '" + cluster + "', this server is in '" + expectedCluster + "'";
        }
        if (!nodeName(nodeId).equals(name)) {
            return "certificate names " + name + " but the peer claims node " + nodeId;
        }
        return null;
    }
}
