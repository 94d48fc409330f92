package io.synod.client;

/** Receives a watch's events in slot order, each once, on the client's callback threads (one at a time per watch). */
public interface WatchListener {
    void onEvent(WatchEvent event);

    /**
     * The watch ended without being closed: {@link WatchCompactedException} if the events asked for are no longer
     * kept, or another {@link SynodException} if the client was closed. No event follows.
     */
    default void onError(SynodException error) {}
}
