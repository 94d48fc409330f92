package io.synod.core.erasure;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the Reed-Solomon vectors: the directory named by the system property
 * {@code synod.vectors.dir} if set, else the copy shipped in this module's test resources
 * ({@code core/src/test/resources/reed-solomon}). The repository carries its own copy, so the result
 * never depends on where the checkout lives. Fails, never skips, when absent: a compatibility test
 * that silently does not run is worse than none.
 */
final class VectorsDirectory {

    static final String PROPERTY = "synod.vectors.dir";
    static final String RESOURCE = "/reed-solomon/backblaze-vectors.jsonl";

    private VectorsDirectory() {
    }

    static Path locate() {
        return locate(System.getProperty(PROPERTY), VectorsDirectory.class.getResource(RESOURCE));
    }

    /**
     * The lookup itself: {@code configured} is the property's value (or null), {@code bundled} the
     * test resource's URL (or null when the test classpath lacks it).
     */
    static Path locate(String configured, URL bundled) {
        if (configured != null) {
            Path dir = Path.of(configured).toAbsolutePath();
            if (!Files.isDirectory(dir)) {
                throw new AssertionError("system property " + PROPERTY + " names " + dir
                        + ", which is not a directory");
            }
            return dir;
        }
        if (bundled == null || !"file".equals(bundled.getProtocol())) {
            throw new AssertionError("Reed-Solomon test vectors not found: the test classpath has no "
                    + RESOURCE + " (core/src/test/resources/reed-solomon); set -D" + PROPERTY + "=DIR to use another copy");
        }
        try {
            return Path.of(bundled.toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new AssertionError("Reed-Solomon test vectors: unusable resource location " + bundled, e);
        }
    }
}
