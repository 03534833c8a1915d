package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 9: a policy section of the wrong type is refused by check-config and by serve --config (fail closed). */
class PolicyErrorsCommandTest {

    private static int run(ByteArrayOutputStream err, String... args) {
        PrintStream old = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            return ToolbusCli.execute(args);
        } finally {
            System.setErr(old);
        }
    }

    @Test
    void checkConfigAndServeRefuseAWrongTypedPolicyValue(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("toolbus.yaml");
        Files.writeString(file, "tools:\n  deny: {secret: true}\n");
        ByteArrayOutputStream check = new ByteArrayOutputStream();
        assertThat(run(check, "check-config", file.toString())).isEqualTo(1);
        assertThat(check.toString(StandardCharsets.UTF_8))
                .contains("toolbus: error: tools.deny: must be a list, got a mapping")
                .contains("is refused");
        ByteArrayOutputStream serve = new ByteArrayOutputStream();
        assertThat(run(serve, "serve", "--config", file.toString())).isEqualTo(1);
        assertThat(serve.toString(StandardCharsets.UTF_8)).contains("tools.deny: must be a list, got a mapping");
    }

    @Test
    void aWrongTypedExecutionValueIsStillOnlyAWarning(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("toolbus.yaml");
        Files.writeString(file, "execution:\n  timeout: abc\n");
        ByteArrayOutputStream check = new ByteArrayOutputStream();
        assertThat(run(check, "check-config", file.toString())).isZero();
        assertThat(check.toString(StandardCharsets.UTF_8)).contains("warning:").contains("is valid");
    }
}
