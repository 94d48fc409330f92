package io.synod.protocol;

import java.util.List;

/**
 * The answer to a watch read: the changes found (at most the limit asked for, in order), the position to read from
 * next, and whether changes the watcher asked for are no longer kept (it must then read the current state and watch
 * on from there).
 */
public record KeyChangeBatch(List<KeyChange> events, long nextSlot, int nextIndex, boolean compacted) {}
