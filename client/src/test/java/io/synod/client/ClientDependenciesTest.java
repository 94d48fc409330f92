package io.synod.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The SDK's footprint: an application that depends on {@code synod-client} gets the wire protocol, the SDK and
 * the discovery layer, and nothing of the replica, the simulator, the checker, the server or the benchmarks.
 * The test classpath is the runtime one plus test libraries, so a Synod module on it is one the SDK drags in.
 */
class ClientDependenciesTest {
    /** The Synod packages an SDK user's classpath holds: io.synod.{client, coordination, protocol}. */
    private static final Set<String> ALLOWED = Set.of("client", "coordination", "protocol");

    @Test
    void onlyTheProtocolTheSdkAndDiscoveryAreOnTheClasspath() {
        Set<String> found = new TreeSet<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            found.addAll(synodPackagesIn(Path.of(entry)));
        }
        assertEquals(new TreeSet<>(ALLOWED), found,
                "Synod modules on the client's classpath (synod-core, -leases, -server or -bench must not be there)");
    }

    @Test
    void theSimulatorAndTheCheckerAreNotLoadable() {
        assertThrows(ClassNotFoundException.class, () -> Class.forName("io.synod.core.sim.Simulation"));
        assertThrows(ClassNotFoundException.class, () -> Class.forName("io.synod.core.check.LinearizabilityChecker"));
        assertThrows(ClassNotFoundException.class, () -> Class.forName("io.synod.core.history.HistoryJson"));
        assertFalse(Collections.list(resources("io/synod/core")).iterator().hasNext(), "io.synod.core on the classpath");
    }

    private static Enumeration<URL> resources(String name) {
        try {
            return ClientDependenciesTest.class.getClassLoader().getResources(name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The second component of every io/synod/X/ package in a classpath directory or jar. */
    private static Set<String> synodPackagesIn(Path entry) {
        Set<String> packages = new TreeSet<>();
        try {
            if (Files.isDirectory(entry)) {
                Path root = entry.resolve("io/synod");
                if (Files.isDirectory(root)) {
                    try (Stream<Path> children = Files.list(root)) {
                        children.filter(Files::isDirectory).forEach(p -> packages.add(p.getFileName().toString()));
                    }
                }
            } else if (Files.isRegularFile(entry) && entry.toString().endsWith(".jar")) {
                try (JarFile jar = new JarFile(entry.toFile())) {
                    for (JarEntry e : Collections.list(jar.entries())) {
                        String[] parts = e.getName().split("/");
                        if (parts.length > 3 && parts[0].equals("io") && parts[1].equals("synod")) {
                            packages.add(parts[2]);
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read classpath entry " + entry, e);
        }
        return packages;
    }
}
