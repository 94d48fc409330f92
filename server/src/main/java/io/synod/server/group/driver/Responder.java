package io.synod.server.group.driver;

import io.synod.protocol.ClientFrame;


/**
 * Where the answer to one client request goes (a connection). The driver hands each answer to the
 * responder its request came with; what the responder does with it (write to a socket, complete a
 * future in a test) is outside the driver.
 */
@FunctionalInterface
public interface Responder {
    void respond(ClientFrame.Response response);
}
