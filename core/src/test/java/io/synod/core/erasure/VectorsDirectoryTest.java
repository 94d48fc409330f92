package io.synod.core.erasure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The vectors come from the repository's own test resources, or from a directory the user names. */
class VectorsDirectoryTest {

    @TempDir
    Path temp;

    @Test
    void theRepositoryShipsItsOwnCopy() {
        Path dir = VectorsDirectory.locate(null, VectorsDirectory.class.getResource(VectorsDirectory.RESOURCE));
        assertTrue(Files.isRegularFile(dir.resolve("backblaze-vectors.jsonl")), dir.toString());
    }

    @Test
    void aMissingResourceFailsNamingWhereItShouldBe() {
        AssertionError missing = assertThrows(AssertionError.class, () -> VectorsDirectory.locate(null, null));
        assertTrue(missing.getMessage().contains("core/src/test/resources/reed-solomon"), missing.getMessage());
        assertTrue(missing.getMessage().contains("-Dsynod.vectors.dir"), missing.getMessage());
    }

    @Test
    void aConfiguredDirectoryWinsAndMustExist() {
        AssertionError wrong = assertThrows(AssertionError.class,
                () -> VectorsDirectory.locate(temp.resolve("nowhere").toString(), null));
        assertTrue(wrong.getMessage().contains("which is not a directory"), wrong.getMessage());
        assertEquals(temp, VectorsDirectory.locate(temp.toString(), null));
    }
}
