/**
 * Histories of the list-append workload: what the simulator's clients did, as events and as operations.
 *
 * <p>{@link io.synod.core.history.HistoryRecorder} records a run as it happens;
 * {@link io.synod.core.history.History} is the validated, immutable result;
 * {@link io.synod.core.history.HistoryJson} writes and strictly reads the JSON-lines file format of
 * {@code docs/history-format.md}. Sans-I/O: readers and writers, never files.
 */
package io.synod.core.history;
