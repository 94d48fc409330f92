package io.synod.coordination;

/**
 * Content of {@code /synod/<cluster>/groups/<g>/epoch}: the last epoch handed out for the group and
 * the node that obtained it (-1 before the first election).
 */
public record EpochRecord(long epoch, int allocatedBy) {
    public EpochRecord {
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be >= 0, got " + epoch);
        }
        if (allocatedBy < -1 || allocatedBy > ClusterPaths.MAX_NODE_ID) {
            throw new IllegalArgumentException("epoch allocator must be -1.." + ClusterPaths.MAX_NODE_ID
                    + ", got " + allocatedBy);
        }
    }
}
