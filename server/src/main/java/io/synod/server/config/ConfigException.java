package io.synod.server.config;

/** A bad configuration value; the message is one line that names the key and what is wrong. */
public final class ConfigException extends Exception {
    public ConfigException(String message) {
        super(message);
    }
}
