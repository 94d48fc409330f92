package io.synod.protocol;

import java.nio.charset.StandardCharsets;

/**
 * What a server needs to know of a client command before it reaches a group, read from the payload once at the
 * client port: the key it is routed by and whether it only reads (a lease may answer it). The group then takes
 * this with the command instead of decoding the payload again.
 *
 * @param routingKey the command's key as UTF-8, or the empty key for a session command (sessions, the keys they
 *                   create and watches all live in the session group, the group owning the start of the key space)
 * @param readOnly   whether the command changes nothing
 */
public record RoutedCommand(byte[] routingKey, boolean readOnly) {
    /** Decodes {@code payload} (a {@link KvCommand} or a {@link SessionCommand}); throws naming what is wrong. */
    public static RoutedCommand of(byte[] payload) {
        if (SessionCommand.isSessionCommand(payload)) {
            return new RoutedCommand(new byte[0], SessionCommand.decode(payload).isReadOnly());
        }
        KvCommand command = KvCommand.decode(payload);
        return new RoutedCommand(command.key().getBytes(StandardCharsets.UTF_8), command.isReadOnly());
    }
}
