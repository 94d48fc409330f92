package io.synod.server.wire;

/**
 * Bytes from the network or the disk that do not decode: the message names what was wrong
 * (a length beyond what is left, an unknown type, a bad version). Checked, so every caller that
 * decodes untrusted bytes has to decide what to do (close the connection, treat a record as corrupt).
 */
public final class MalformedInputException extends Exception {
    public MalformedInputException(String message) {
        super(message);
    }
}
