/**
 * The client protocol on a Netty channel: one length-prefixed encoder/decoder pair used by both the SDK and the
 * server's client port, so the framing of client frames is written once.
 */
package io.synod.client.codec;
