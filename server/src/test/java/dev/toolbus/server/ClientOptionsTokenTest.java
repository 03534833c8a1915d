package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where {@code call} and {@code tools} take their token from. */
class ClientOptionsTokenTest {

    @Test
    void theFirstScopedTokenIsTheLastResort(@TempDir Path dir) throws Exception {
        assumeTrue(System.getenv("TOOLBUS_TOKEN") == null, "TOOLBUS_TOKEN is set in this environment");
        Path file = dir.resolve("toolbus.yaml");
        Files.writeString(file, "gateway:\n  tokens:\n    - {name: bot, token: bot-1}\n    - {name: b2, token: bot-2}\n");
        ClientOptions o = new ClientOptions();
        o.config = file;
        assertThat(o.token()).isEqualTo("bot-1");
        o.token = " flag ";
        assertThat(o.token()).isEqualTo("flag");
        Files.writeString(file, "gateway:\n  token: main\n  tokens:\n    - {name: bot, token: bot-1}\n");
        ClientOptions p = new ClientOptions();
        p.config = file;
        assertThat(p.token()).isEqualTo("main");
    }
}
