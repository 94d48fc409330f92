/**
 * Reed-Solomon erasure coding for RS-Paxos coded accepts (docs/erasure.md).
 *
 * <p>{@link io.synod.core.erasure.ReedSolomonCodec} is the stripe-level codec: systematic
 * Reed-Solomon over GF(2^8), byte-compatible with Backblaze JavaReedSolomon (checked against
 * {@code core/src/test/resources/reed-solomon}). {@link io.synod.core.erasure.ValueCoder} and
 * {@link io.synod.core.erasure.ValueShard} are the value-level API the replication layer uses: a
 * value of any length becomes D data plus P parity shards, each with its index, the value's length
 * and checksum, and its own checksum, in a versioned byte encoding for the network and the disk.
 *
 * <p>Everything here is pure computation (sans-I/O), single-threaded per call, lock-free and safe
 * to share between threads.
 */
package io.synod.core.erasure;
