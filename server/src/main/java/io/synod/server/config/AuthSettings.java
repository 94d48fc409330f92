package io.synod.server.config;

import io.synod.server.auth.AuthKeys;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Client authorization (docs/security.md, "Client authorization"): whether the client port checks each request
 * against the roles of its certificate's user ({@code auth.enabled}, on by default whenever TLS is: secure by
 * default; without TLS there is no identity to check, so insecure mode grants everything), the bootstrap
 * administrators ({@code auth.admin.users}, who can create the first users and roles), and how often the node
 * re-reads its applied copy of the table ({@code auth.refresh.ms}).
 */
public record AuthSettings(boolean enabled, Set<String> adminUsers, int refreshMillis) {
    public AuthSettings {
        adminUsers = Set.copyOf(adminUsers);
    }

    static void addKeys(Map<String, String[]> k) {
        k.put("auth.enabled", new String[] {"true", "check client requests against users, roles and key-prefix "
                + "permissions (needs TLS: with insecure=true every client may do everything)"});
        k.put("auth.admin.users", new String[] {"root", "comma-separated client certificate CNs that always hold the "
                + "admin role (the bootstrap administrators)"});
        k.put("auth.refresh.ms", new String[] {"200", "how often the node re-reads its applied copy of the authorization table"});
    }

    static AuthSettings parse(Properties p, boolean insecure) throws ConfigException {
        String enabled = p.getProperty("auth.enabled", "true").trim();
        if (!enabled.equals("true") && !enabled.equals("false")) {
            throw new ConfigException("auth.enabled: must be true or false, got '" + enabled + "'");
        }
        Set<String> admins = new LinkedHashSet<>();
        for (String user : p.getProperty("auth.admin.users", "root").split(",")) {
            if (!user.isBlank()) {
                try {
                    admins.add(AuthKeys.name(user.trim(), "auth.admin.users: user"));
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(e.getMessage());
                }
            }
        }
        return new AuthSettings(!insecure && enabled.equals("true"), admins,
                ServerConfig.integer(p, "auth.refresh.ms", 10, 60_000));
    }

    /** The properties text of this setting. */
    String toProperties() {
        return "auth.enabled=" + enabled + "\nauth.admin.users=" + String.join(",", adminUsers) + "\nauth.refresh.ms="
                + refreshMillis + "\n";
    }
}
