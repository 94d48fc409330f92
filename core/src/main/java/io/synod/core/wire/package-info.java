/**
 * The client protocol's frames and their byte format, shared by the server and the client SDK.
 */
package io.synod.core.wire;
