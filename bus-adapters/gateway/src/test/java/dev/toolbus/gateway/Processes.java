package dev.toolbus.gateway;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs external programs (curl, node, npm) from tests. */
final class Processes {

    /** What a finished process left. */
    record Result(int exit, String out, String err) {
    }

    private Processes() {
    }

    /** Whether {@code program} is on the PATH. */
    static boolean onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }

    /** The repository's root (the module runs its tests in bus-adapters/gateway). */
    static Path repoRoot() {
        Path dir = Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).toAbsolutePath();
        for (Path p = dir; p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("docs")) && Files.isDirectory(p.resolve("bus-adapters"))) {
                return p;
            }
        }
        throw new IllegalStateException("repository root not found above " + dir);
    }

    /** Runs the command in {@code dir}, killing it after {@code timeoutSeconds}. */
    static Result run(Path dir, long timeoutSeconds, List<String> command) throws IOException, InterruptedException {
        Path out = Files.createTempFile("toolbus-proc", ".out");
        Path err = Files.createTempFile("toolbus-proc", ".err");
        try {
            Process p = new ProcessBuilder(command).directory(dir.toFile())
                    .redirectOutput(out.toFile()).redirectError(err.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError(command + " did not finish within " + timeoutSeconds + " s; stderr: "
                        + Files.readString(err, StandardCharsets.UTF_8));
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
