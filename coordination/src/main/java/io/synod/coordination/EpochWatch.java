package io.synod.coordination;

import io.synod.protocol.ElectionEvent;
import java.io.Closeable;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches a group's epoch znode ({@code /synod/<cluster>/groups/<g>/epoch}) and hands every value it
 * holds to the replica as {@link ElectionEvent.EpochSeen}: the replica refuses ballots running more than
 * a bounded slack ahead of the newest epoch it saw (docs/security.md, "Defence in depth in the replica").
 * The cache reads the znode when it starts and again after every reconnection, so a node that was cut
 * from ZooKeeper catches up with the epochs allocated meanwhile as soon as it is back; an epoch it has
 * not seen yet but a legitimate leader already uses arrives with the watch that allocation fired.
 */
final class EpochWatch implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(EpochWatch.class);

    private final CuratorCache cache;
    private final String path;

    EpochWatch(CuratorFramework client, String path, Executor dispatcher, Consumer<ElectionEvent> deliver) {
        this.path = path;
        this.cache = CuratorCache.build(client, path, CuratorCache.Options.SINGLE_NODE_CACHE);
        cache.listenable().addListener(CuratorCacheListener.builder()
                .forCreatesAndChanges((before, after) -> onData(after, deliver)).build(), dispatcher);
    }

    void start() {
        cache.start();
    }

    private void onData(ChildData data, Consumer<ElectionEvent> deliver) {
        if (data == null || !path.equals(data.getPath()) || data.getData() == null) {
            return;
        }
        try {
            deliver.accept(new ElectionEvent.EpochSeen(ZnodeCodec.decodeEpoch(data.getData()).epoch()));
        } catch (RuntimeException e) {
            // A malformed epoch znode tells nothing: the last epoch seen stays the bound.
            log.warn("ignoring the epoch znode {}: {}", path, e.getMessage());
        }
    }

    @Override
    public void close() {
        cache.close();
    }
}
