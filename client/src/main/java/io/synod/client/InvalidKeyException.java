package io.synod.client;

/** A key is empty, null, or longer than {@code KvCommand.MAX_KEY_BYTES} (1024) UTF-8 bytes. */
public class InvalidKeyException extends BadRequestException {
    private static final long serialVersionUID = 1L;

    public InvalidKeyException(String message) {
        super(message);
    }
}
