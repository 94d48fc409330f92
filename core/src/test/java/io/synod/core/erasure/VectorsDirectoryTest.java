package io.synod.core.erasure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The vectors lookup finds shared/ beside any ancestor, and says where it looked when it cannot. */
class VectorsDirectoryTest {

    @TempDir
    Path temp;

    @Test
    void findsSharedBesideAnAncestor() throws IOException {
        Path vectors = Files.createDirectories(temp.resolve("shared/vectors/reed-solomon"));
        Path deep = Files.createDirectories(temp.resolve("main/core"));
        assertEquals(vectors, VectorsDirectory.locate(null, deep, temp));
    }

    @Test
    void failsNamingEveryPlaceItLooked() throws IOException {
        Path deep = Files.createDirectories(temp.resolve("main/core"));
        AssertionError missing = assertThrows(AssertionError.class, () -> VectorsDirectory.locate(null, deep, temp));
        assertTrue(missing.getMessage().contains(deep.resolve("shared/vectors/reed-solomon").toString()), missing.getMessage());
        assertTrue(missing.getMessage().contains(temp.resolve("shared/vectors/reed-solomon").toString()), missing.getMessage());
        assertTrue(missing.getMessage().contains("-Dsynod.vectors.dir"), missing.getMessage());
        assertFalse(missing.getMessage().contains(temp.getParent().resolve("shared/vectors/reed-solomon").toString()),
                "the search stops at the root it was given, wherever the temp directory lives: " + missing.getMessage());
    }

    @Test
    void vectorsAboveTheGivenRootAreNotFound() throws IOException {
        // The clone-in-the-temp-directory case: real vectors beside an ancestor of the test's root.
        Files.createDirectories(temp.resolve("shared/vectors/reed-solomon"));
        Path root = Files.createDirectories(temp.resolve("checkout"));
        Path deep = Files.createDirectories(root.resolve("main/core"));
        assertThrows(AssertionError.class, () -> VectorsDirectory.locate(null, deep, root));
    }

    @Test
    void aConfiguredDirectoryMustExist() {
        AssertionError wrong = assertThrows(AssertionError.class,
                () -> VectorsDirectory.locate(temp.resolve("nowhere").toString(), temp, temp));
        assertTrue(wrong.getMessage().contains("which is not a directory"), wrong.getMessage());
        assertEquals(temp, VectorsDirectory.locate(temp.toString(), Path.of("/"), null));
    }
}
