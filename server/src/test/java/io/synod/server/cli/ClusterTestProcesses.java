package io.synod.server.cli;

import java.io.IOException;
import java.nio.file.Path;

/** What the tests on real cluster processes share: ending every process of the cluster in a directory. */
final class ClusterTestProcesses {
    private ClusterTestProcesses() {}

    /**
     * SIGKILLs the ZooKeeper and server processes the cluster file in {@code dir} names (after a test, or from a
     * shutdown hook when the test JVM is stopped mid-test); nothing when no cluster was started there.
     */
    static void destroyAll(Path dir) {
        try {
            ClusterFile file = ClusterFile.read(dir);
            ProcessHandle.of(file.zookeeperPid()).ifPresent(ProcessHandle::destroyForcibly);
            file.nodes().forEach(n -> ProcessHandle.of(n.pid()).ifPresent(ProcessHandle::destroyForcibly));
        } catch (IOException | RuntimeException e) {
            // No cluster was started.
        }
    }
}
