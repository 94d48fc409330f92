package io.synod.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The docker-compose scripts cannot run here (no Docker engine, no netem), so the build checks what it
 * can: they parse ({@code bash -n}), and apply-netem.sh produces the tc commands of the latency model
 * for a container's interfaces (docker/check-apply-netem.sh, with --dry-run and a stand-in {@code ip}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DockerScriptsTest {

    /** The repository root: surefire runs in the bench module's directory. */
    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();

    private record Result(int exitCode, String output) {
    }

    private static Result bash(String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of(args));
        command.add(0, "bash");
        Process process = new ProcessBuilder(command).directory(REPO.toFile()).redirectErrorStream(true).start();
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("bash " + String.join(" ", args) + " did not finish within 30 s");
        }
        return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    }

    @Test
    void scriptsParse() throws Exception {
        for (String script : List.of("docker/apply-netem.sh", "docker/entrypoint-zk.sh", "docker/entrypoint-bench.sh",
                "docker/check-apply-netem.sh", "scripts/netem-delays.sh")) {
            assertTrue(Files.isRegularFile(REPO.resolve(script)), script + " missing");
            Result result = bash("-n", script);
            assertEquals(0, result.exitCode(), script + ": " + result.output());
        }
    }

    @Test
    void applyNetemProducesTheModelsTcCommands() throws Exception {
        Result result = bash("docker/check-apply-netem.sh");
        assertEquals(0, result.exitCode(), result.output());
        assertTrue(result.output().contains("all checks passed"), result.output());
    }
}
