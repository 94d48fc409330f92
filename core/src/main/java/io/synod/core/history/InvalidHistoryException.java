package io.synod.core.history;

/**
 * A sequence of events that is not a history: a completion without an invoke, a second invoke by a
 * process that already has an operation outstanding, time going backwards, and the like.
 */
public final class InvalidHistoryException extends IllegalArgumentException {
    private final int eventIndex;
    private final String problem;

    /**
     * @param eventIndex the 0-based index of the offending event (line {@code eventIndex + 1} of a
     *                   history file)
     */
    public InvalidHistoryException(int eventIndex, String problem) {
        super("event " + eventIndex + ": " + problem);
        this.eventIndex = eventIndex;
        this.problem = problem;
    }

    /** The 0-based index of the offending event. */
    public int eventIndex() {
        return eventIndex;
    }

    /** What is wrong, without the event index (a file reader puts the line number in its place). */
    public String problem() {
        return problem;
    }
}
