package dev.toolbus.bus.tck;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the scripts of docs/examples/node (installing their packages with npm ci the first time). */
public final class NodeExamples {

    private NodeExamples() {
    }

    /** The examples folder, seen from an adapter module. */
    public static final Path DIR = Path.of("..", "..", "docs", "examples", "node").toAbsolutePath().normalize();

    /** How a script ended. */
    public record Result(int exitCode, String stdout, String stderr) {
    }

    /** Skips when node/npm are missing; installs node_modules when absent. */
    public static void require() throws Exception {
        assumeTrue(Files.isRegularFile(DIR.resolve("package.json")), "no " + DIR + "/package.json");
        assumeTrue(run(List.of("node", "--version"), Map.of(), 30).exitCode() == 0, "node is not installed");
        if (!Files.isDirectory(DIR.resolve("node_modules"))) {
            boolean locked = Files.isRegularFile(DIR.resolve("package-lock.json"));
            Result npm = run(List.of("npm", locked ? "ci" : "install", "--no-audit", "--no-fund"), Map.of(), 300);
            if (npm.exitCode() != 0) {
                throw new IllegalStateException("npm failed in " + DIR + ":\n" + npm.stdout() + npm.stderr());
            }
        }
    }

    /**
     * Runs a command in the examples folder. Its output goes through two files in the temp folder,
     * deleted on every path once the process has ended (a timed-out one is killed first).
     */
    public static Result run(List<String> command, Map<String, String> env, long timeoutSeconds) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(DIR.toFile());
        pb.environment().putAll(env);
        Path out = Files.createTempFile("node-out", ".txt");
        Path err = null;
        Process p = null;
        try {
            err = Files.createTempFile("node-err", ".txt");
            pb.redirectOutput(out.toFile()).redirectError(err.toFile());
            try {
                p = pb.start();
            } catch (IOException e) {
                return new Result(127, "", e.toString());
            }
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                return new Result(-1, Files.readString(out, StandardCharsets.UTF_8), "timed out");
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            if (p != null && p.isAlive()) {
                p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
            Files.deleteIfExists(out);
            if (err != null) {
                Files.deleteIfExists(err);
            }
        }
    }
}
