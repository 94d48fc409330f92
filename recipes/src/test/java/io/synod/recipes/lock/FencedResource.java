package io.synod.recipes.lock;

import java.util.ArrayList;
import java.util.List;

/**
 * The shared resource the tests protect with a lock. It checks what a lock promises: no two holders inside at
 * once, holders' tokens strictly increasing in the order they enter, and fencing: a write carrying a token lower
 * than the highest one seen is rejected, as a storage service guarded by fencing tokens would.
 */
final class FencedResource {

    private long highestToken = Long.MIN_VALUE;
    private int holdersInside;
    private final List<String> violations = new ArrayList<>();
    private final List<Long> entryTokens = new ArrayList<>();

    /** A holder enters its critical section. */
    synchronized void enter(long token) {
        holdersInside++;
        if (holdersInside > 1) {
            violations.add("two holders inside at once; the second has token " + token);
        }
        if (!entryTokens.isEmpty() && token <= entryTokens.get(entryTokens.size() - 1)) {
            violations.add("token " + token + " entered after token " + entryTokens.get(entryTokens.size() - 1));
        }
        entryTokens.add(token);
        write(token);
    }

    synchronized void exit() {
        holdersInside--;
    }

    /** A fenced write: accepted unless a higher token has been seen. */
    synchronized boolean write(long token) {
        if (token < highestToken) {
            return false;
        }
        highestToken = token;
        return true;
    }

    synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    synchronized List<Long> entryTokens() {
        return List.copyOf(entryTokens);
    }
}
