package io.synod.core.check;

import java.util.List;

/**
 * The checker's answer for a whole history: one result per key (P-compositionality: the history is
 * linearizable exactly when every key's sub-history is).
 *
 * @param verdict    {@link Verdict#NOT_LINEARIZABLE} if any key is; otherwise {@link Verdict#UNKNOWN} if
 *                   any key is; otherwise {@link Verdict#LINEARIZABLE}
 * @param keyResults one result per key, in order of the key's first appearance in the history
 */
public record CheckResult(Verdict verdict, List<KeyCheckResult> keyResults) {

    /** True only if every key was proven linearizable. */
    public boolean isLinearizable() {
        return verdict == Verdict.LINEARIZABLE;
    }

    /** The results of the keys that are not linearizable. */
    public List<KeyCheckResult> violations() {
        return keyResults.stream().filter(result -> result.verdict() == Verdict.NOT_LINEARIZABLE).toList();
    }

    /** The verdict, then every key that is not linearizable or unknown, with its explanation. */
    public String explanation() {
        StringBuilder text = new StringBuilder();
        text.append(verdict).append(" (").append(keyResults.size()).append(" keys)");
        for (KeyCheckResult result : keyResults) {
            if (result.verdict() != Verdict.LINEARIZABLE) {
                text.append('\n').append(result.explanation());
            }
        }
        return text.toString();
    }

    @Override
    public String toString() {
        return explanation();
    }
}
