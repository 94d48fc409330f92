package io.synod.core.history;

import java.io.IOException;

/** A history file that does not follow {@code docs/history-format.md}; the message names the line and the problem. */
public final class HistoryFormatException extends IOException {
    private final long lineNumber;

    /** @param lineNumber the 1-based number of the offending line */
    public HistoryFormatException(long lineNumber, String problem) {
        super("line " + lineNumber + ": " + problem);
        this.lineNumber = lineNumber;
    }

    /** The 1-based number of the offending line. */
    public long lineNumber() {
        return lineNumber;
    }
}
