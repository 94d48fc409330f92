package io.synod.core.build;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import de.thetaphi.forbiddenapis.Checker;
import de.thetaphi.forbiddenapis.ForbiddenApiException;
import de.thetaphi.forbiddenapis.Logger;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * The sans-I/O rule (DESIGN.md, "Conventions") is enforced by the forbiddenapis plugin on core and
 * leases. These tests prove that check can fail: each fixture below breaks the rule once and
 * must be rejected by the very signatures file the build uses (negative controls), and a clean
 * fixture must pass. The keyword {@code synchronized}, invisible to bytecode signatures, is checked
 * here on the sources.
 */
class SansIoRuleTest {
    private static final Path ROOT = findRoot();

    static Path findRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("config/forbidden/sans-io.txt"))) {
                return dir;
            }
        }
        throw new IllegalStateException("config/forbidden/sans-io.txt not found above " + Path.of("").toAbsolutePath());
    }

    private static List<String> check(Class<?> fixture) throws Exception {
        List<String> errors = new ArrayList<>();
        Logger logger = new Logger() {
            public void error(String msg) {
                errors.add(msg);
            }

            public void warn(String msg) {}

            public void info(String msg) {}

            public void debug(String msg) {}
        };
        Checker checker = new Checker(logger, SansIoRuleTest.class.getClassLoader(),
                Checker.Option.FAIL_ON_VIOLATION, Checker.Option.IGNORE_SIGNATURES_OF_MISSING_CLASSES);
        checker.parseSignaturesFile(ROOT.resolve("config/forbidden/sans-io.txt").toFile());
        String resource = fixture.getName().replace('.', '/') + ".class";
        try (InputStream in = fixture.getClassLoader().getResourceAsStream(resource)) {
            checker.streamReadClassToCheck(in, resource);
        }
        try {
            checker.run();
        } catch (ForbiddenApiException e) {
            errors.add(e.getMessage());
        }
        return errors;
    }

    @ParameterizedTest
    @ValueSource(classes = {Fixtures.ReadsNanoTime.class, Fixtures.ReadsWallClock.class, Fixtures.DrawsUnseededRandom.class,
            Fixtures.UsesThreadLocalRandom.class, Fixtures.Sleeps.class, Fixtures.StartsThread.class, Fixtures.TakesLock.class,
            Fixtures.ReadsFile.class, Fixtures.UsesInstantNow.class})
    void everyKindOfAmbientEffectFailsTheCheck(Class<?> fixture) throws Exception {
        List<String> errors = check(fixture);
        assertTrue(!errors.isEmpty(), fixture.getSimpleName() + " should violate the sans-I/O signatures");
    }

    @Test
    void pureCodePassesTheCheck() throws Exception {
        assertEquals(List.of(), check(Fixtures.Pure.class));
    }

    @Test
    void seededRandomIsAllowed() throws Exception {
        assertEquals(List.of(), check(Fixtures.SeededRandom.class));
    }

    @Test
    void mainSourcesOfCoreLeasesAndTheGroupDriverHaveNoSynchronized() throws IOException {
        Pattern keyword = Pattern.compile("\\bsynchronized\\b");
        List<String> hits = new ArrayList<>();
        for (String module : List.of("protocol/src/main/java", "core/src/main/java", "leases/src/main/java",
                "server/src/main/java/io/synod/server/group/driver")) {
            Path sources = ROOT.resolve(module);
            if (!Files.isDirectory(sources)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(sources)) {
                for (Path file : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
                    List<String> lines = Files.readAllLines(file);
                    for (int i = 0; i < lines.size(); i++) {
                        String code = lines.get(i).replaceAll("//.*$", "").trim();
                        if (!code.startsWith("*") && keyword.matcher(code).find()) {
                            hits.add(ROOT.relativize(file) + ":" + (i + 1));
                        }
                    }
                }
            }
        }
        assertEquals(List.of(), hits, "the sans-I/O core takes no locks (DESIGN.md, Conventions)");
    }
}
