package io.synod.client;

import java.util.ArrayDeque;

/**
 * The {@link ClientEngine}'s lanes: up to {@code max} of them, created on demand and reused, most
 * recently freed first. Touched only on the engine's event loop.
 */
final class LanePool {
    private final ArrayDeque<Lane> free = new ArrayDeque<>();
    private final int max;
    private int created;

    LanePool(int max) {
        this.max = max;
    }

    /** A free lane, a new one while fewer than {@code max} exist, or null. */
    Lane acquire() {
        Lane lane = free.poll();
        if (lane == null && created < max) {
            created++;
            lane = new Lane();
        }
        return lane;
    }

    void release(Lane lane) {
        free.addFirst(lane);
    }

    int max() {
        return max;
    }

    int created() {
        return created;
    }
}
