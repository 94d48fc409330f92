package io.synod.client;

import static io.synod.client.ClientReplies.expect;

import io.synod.coordination.ShardMap;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A range scan across shards: each group answers only for its own range, so a scan pages through the
 * group owning {@code start}, then continues at the next range start until {@code end} or the limit.
 */
final class ShardScan {
    private ShardScan() {}

    static CompletableFuture<ScanResult> scanFrom(ClientEngine engine, long timeoutNanos, String start, String end, int limit, Consistency consistency,
            List<KeyValue> out) {
        byte[] from = start.getBytes(StandardCharsets.UTF_8);
        byte[] to = end.getBytes(StandardCharsets.UTF_8);
        if (!end.isEmpty() && Arrays.compareUnsigned(from, to) >= 0) {
            return CompletableFuture.completedFuture(new ScanResult(out, false));
        }
        // The group owning `start` holds keys up to the next range start: scan there, then go on from it.
        String shardEnd = nextRangeStart(engine.shardMap(), from);
        String pageEnd = shardEnd == null ? end
                : end.isEmpty() || Arrays.compareUnsigned(shardEnd.getBytes(StandardCharsets.UTF_8), to) < 0 ? shardEnd : end;
        int want = Math.min(limit - out.size(), KvCommand.MAX_SCAN_LIMIT);
        KvCommand.Scan page;
        try {
            page = new KvCommand.Scan(start, pageEnd, want);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new BadRequestException(e.getMessage()));
        }
        return engine.submit(page, consistency, timeoutNanos).thenCompose(reply -> {
            KvResult.Entries entries = expect(reply, KvResult.Entries.class);
            for (KvResult.Entry e : entries.entries()) {
                out.add(new KeyValue(e.key(), e.value(), e.version(), reply.slot()));
            }
            if (entries.more()) {
                if (out.size() >= limit) {
                    return CompletableFuture.completedFuture(new ScanResult(out, true));
                }
                String last = out.get(out.size() - 1).key();
                return scanFrom(engine, timeoutNanos, last + '\0', end, limit, consistency, out); // The smallest key after `last`.
            }
            if (pageEnd.equals(end)) {
                return CompletableFuture.completedFuture(new ScanResult(out, false));
            }
            if (out.size() >= limit) {
                return scanFrom(engine, timeoutNanos, pageEnd, end, 1, consistency, new ArrayList<>()).thenApply(rest ->
                        new ScanResult(out, !rest.entries().isEmpty()));
            }
            return scanFrom(engine, timeoutNanos, pageEnd, end, limit, consistency, out);
        });
    }

    /** The start of the first range after the one holding {@code key}, as a string, or null if that range is last. */
    private static String nextRangeStart(ShardMap map, byte[] key) {
        for (ShardMap.Range r : map.ranges()) {
            byte[] s = r.startInclusive();
            if (Arrays.compareUnsigned(s, key) > 0) {
                return new String(s, StandardCharsets.UTF_8);
            }
        }
        return null;
    }
}
