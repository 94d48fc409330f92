package io.synod.client;

/** The command (key plus value) exceeds the largest command the servers accept (1 MiB by default). */
public class ValueTooLargeException extends BadRequestException {
    private static final long serialVersionUID = 1L;

    public ValueTooLargeException(String message) {
        super(message);
    }
}
