package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code ./toolbus} launcher script, run from another directory. */
class LauncherIT {

    @Test
    void launcher_runsTheJarFromAnyDirectory(@TempDir Path elsewhere) throws IOException, InterruptedException {
        Path script = Path.of(System.getProperty("toolbus.root", "..")).toRealPath().resolve("toolbus");
        Path out = elsewhere.resolve("out.txt");
        Process p = new ProcessBuilder("bash", script.toString(), "--version")
                .directory(elsewhere.toFile())
                .redirectOutput(out.toFile())
                .redirectError(elsewhere.resolve("err.txt").toFile())
                .start();

        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
        assertThat(p.exitValue()).as(Files.readString(elsewhere.resolve("err.txt"))).isZero();
        assertThat(Files.readString(out, StandardCharsets.UTF_8)).startsWith("toolbus ");
    }
}
