/**
 * The key-value state machine the replicas apply: put, get, delete, compare-and-set, list-append
 * and list read, with a length-checked binary codec for commands ({@link io.synod.protocol.KvCommand})
 * and results ({@link io.synod.protocol.KvResult}). Deterministic: the same chosen commands give the
 * same results and snapshot bytes on every replica. Written once over an ordered byte store
 * ({@link io.synod.core.store.KvStore}): the same machine runs in memory and, on the server, over RocksDB.
 */
package io.synod.core.kv;
