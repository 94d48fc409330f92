/**
 * The client protocol: the frames a client and a server exchange and their byte format, the key-value and session
 * commands with their results, the replies, the watch changes, and the election events the coordination layer hands
 * a replica. Plain Java with no dependency, shared by the server, the client SDK and the core replica.
 */
package io.synod.protocol;
