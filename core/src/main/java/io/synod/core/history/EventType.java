package io.synod.core.history;

/**
 * What an event says about an operation: that it started, or how it ended.
 *
 * <p>The four values follow the Jepsen convention, which is also what external checkers expect.
 */
public enum EventType {
    /** The client issued the operation. */
    INVOKE("invoke"),
    /** The operation took effect, and (for a read) returned the recorded value. */
    OK("ok"),
    /** The operation definitely did not take effect. */
    FAIL("fail"),
    /** The outcome is unknown: the operation may have taken effect at any time after its invocation, or never. */
    INFO("info");

    private final String jsonName;

    EventType(String jsonName) {
        this.jsonName = jsonName;
    }

    /** The name used for this type in the JSON-lines history format ({@code docs/history-format.md}). */
    public String jsonName() {
        return jsonName;
    }

    /** True for the three types that end an operation. */
    public boolean isCompletion() {
        return this != INVOKE;
    }

    /**
     * The type whose {@link #jsonName()} is {@code name}.
     *
     * @throws IllegalArgumentException if no type has that name
     */
    public static EventType fromJsonName(String name) {
        for (EventType type : values()) {
            if (type.jsonName.equals(name)) {
                return type;
            }
        }
        throw new IllegalArgumentException("unknown event type \"" + name + "\" (expected invoke, ok, fail or info)");
    }
}
