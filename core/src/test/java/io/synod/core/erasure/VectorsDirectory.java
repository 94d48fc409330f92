package io.synod.core.erasure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds {@code shared/vectors/reed-solomon}: the system property {@code synod.vectors.dir} if set,
 * else {@code A/shared/vectors/reed-solomon} for the working directory and each of its ancestors A
 * (CI clones the repository with {@code shared/} beside it). Fails, never skips, when absent: a
 * compatibility test that silently does not run is worse than none.
 */
final class VectorsDirectory {

    static final String PROPERTY = "synod.vectors.dir";

    private VectorsDirectory() {
    }

    static Path locate() {
        return locate(System.getProperty(PROPERTY), Path.of("").toAbsolutePath(), null);
    }

    /**
     * The lookup itself: {@code configured} is the property's value (or null), {@code start} the
     * working directory, {@code root} the highest ancestor to look in (null: the file system root).
     * A test passes its own root, so what it finds cannot depend on where the repository lives.
     */
    static Path locate(String configured, Path start, Path root) {
        if (configured != null) {
            Path dir = Path.of(configured).toAbsolutePath();
            if (!Files.isDirectory(dir)) {
                throw new AssertionError("system property " + PROPERTY + " names " + dir
                        + ", which is not a directory");
            }
            return dir;
        }
        List<Path> tried = new ArrayList<>();
        for (Path ancestor = start; ancestor != null; ancestor = ancestor.getParent()) {
            Path candidate = ancestor.resolve("shared").resolve("vectors").resolve("reed-solomon");
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
            tried.add(candidate);
            if (ancestor.equals(root)) {
                break;
            }
        }
        throw new AssertionError("Reed-Solomon test vectors not found. Set -D" + PROPERTY
                + "=DIR or place shared/vectors/reed-solomon beside the repository. Looked in: " + tried);
    }
}
