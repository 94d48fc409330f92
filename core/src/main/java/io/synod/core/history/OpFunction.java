package io.synod.core.history;

/** The operations of the list-append workload: each key holds a list of longs. */
public enum OpFunction {
    /** Appends one long, unique per key across the whole history, to the key's list. */
    APPEND("append"),
    /** Returns the key's whole list. */
    READ("read");

    private final String jsonName;

    OpFunction(String jsonName) {
        this.jsonName = jsonName;
    }

    /** The name used for this function in the JSON-lines history format (field {@code "f"}). */
    public String jsonName() {
        return jsonName;
    }

    /**
     * The function whose {@link #jsonName()} is {@code name}.
     *
     * @throws IllegalArgumentException if no function has that name
     */
    public static OpFunction fromJsonName(String name) {
        for (OpFunction function : values()) {
            if (function.jsonName.equals(name)) {
                return function;
            }
        }
        throw new IllegalArgumentException("unknown function \"" + name + "\" (expected append or read)");
    }
}
