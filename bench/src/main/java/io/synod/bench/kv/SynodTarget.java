package io.synod.bench.kv;

import io.synod.coordination.ShardMap;
import io.synod.server.cli.DemoCommand;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A Synod cluster as a key-value store through {@link KvClient}: key i is {@code <p>kvbench-<i>},
 * where the one-character prefix p sends it to group {@code i mod G} under the uniform shard map, so
 * the keys load every group evenly. Reads are linearizable (the leader, through the log).
 */
final class SynodTarget implements BenchTarget {
    private final String name;
    private final KvClient client;
    private final String[] keys;

    SynodTarget(String name, KvClient client, int groups, int keyCount) {
        this.name = name;
        this.client = client;
        List<String> prefixes = new ArrayList<>(DemoCommand.prefixesPerGroup(ShardMap.uniform(groups)).values());
        this.keys = new String[keyCount];
        for (int i = 0; i < keyCount; i++) {
            keys[i] = prefixes.get(i % prefixes.size()) + "kvbench-" + i;
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public CompletableFuture<?> write(int key, byte[] value) {
        return client.put(keys[key], value);
    }

    @Override
    public CompletableFuture<?> read(int key) {
        return client.get(keys[key]);
    }

    @Override
    public void close() {
        client.close();
    }
}
