/**
 * The ordered byte store under the key-value state: {@link io.synod.core.store.KvStore} (get, ordered scans,
 * atomic batches that carry the applied slot), {@link io.synod.core.store.StoreBatch} and the in-memory store
 * {@link io.synod.core.store.MemoryKvStore}; the server's RocksDB store implements the same interface and
 * {@link io.synod.core.store.CheckpointStore} (snapshots as checkpoints).
 */
package io.synod.core.store;
