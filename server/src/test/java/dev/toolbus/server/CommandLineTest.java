package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.assembly.BusAddress;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.text.DescriptionLocale;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class CommandLineTest {

    private final StringWriter err = new StringWriter();

    private CommandLine cli() {
        CommandLine cl = ToolbusCli.commandLine();
        cl.setErr(new PrintWriter(err, true));
        cl.setOut(new PrintWriter(new StringWriter(), true));
        return cl;
    }

    private static ServeCommand serve(String... args) {
        CommandLine cl = ToolbusCli.commandLine();
        CommandLine.ParseResult parsed = cl.parseArgs(args);
        return (ServeCommand) parsed.subcommand().commandSpec().userObject();
    }

    @Test
    void serve_flags_mapToExecutionSettings() {
        ServeCommand serve = serve("serve", "--bus", "stdio", "--sample-tools", "--max-parallel", "7",
                "--timeout-ms", "2500", "--retry-on-error", "--max-retries", "4", "--cache-ttl-ms", "0",
                "--locale", "zh", "--max-event-bytes", "4096");

        List<String> warnings = new ArrayList<>();
        ExecutionSettings s = serve.execution.settings(warnings);

        assertThat(serve.bus.scheme()).isEqualTo("stdio");
        assertThat(serve.sources.sampleTools).isTrue();
        assertThat(serve.maxEventBytes).isEqualTo(4096);
        assertThat(s.maxParallel()).isEqualTo(7);
        assertThat(s.timeout()).isEqualTo(Duration.ofMillis(2500));
        assertThat(s.retryOnError()).isTrue();
        assertThat(s.maxRetries()).isEqualTo(4);
        assertThat(s.cacheTtl()).isEqualTo(Duration.ZERO);
        assertThat(s.locale()).isEqualTo(DescriptionLocale.ZH);
        assertThat(warnings).isEmpty();
    }

    @Test
    void serve_noFlags_giveTheDefaultSettings() {
        ExecutionSettings s = serve("serve").execution.settings(new ArrayList<>());

        assertThat(s).usingRecursiveComparison().isEqualTo(ExecutionSettings.defaults());
    }

    @Test
    void serve_outOfRangeFlags_fallBackWithWarnings() {
        List<String> warnings = new ArrayList<>();
        ExecutionSettings s = serve("serve", "--max-parallel", "99", "--timeout-ms", "10", "--max-retries", "x",
                "--locale", "fr").execution.settings(warnings);

        assertThat(s.maxParallel()).isEqualTo(20);
        assertThat(s.timeout()).isEqualTo(Duration.ofMillis(1000));
        assertThat(s.maxRetries()).isEqualTo(ExecutionSettings.DEFAULT_MAX_RETRIES);
        assertThat(s.locale()).isEqualTo(DescriptionLocale.EN);
        assertThat(warnings).hasSize(4);
    }

    @Test
    void serve_retryOnErrorFalse_isAccepted() {
        assertThat(serve("serve", "--retry-on-error=false").execution.settings(new ArrayList<>()).retryOnError()).isFalse();
    }

    @Test
    void serve_unknownBus_exitsWith2AndSaysWhy() {
        assertThat(cli().execute("serve", "--bus", "nats://localhost")).isEqualTo(2);
        assertThat(err.toString()).contains("unknown bus 'nats://localhost' (supported: stdio, in-memory, redis://HOST:PORT, kafka://HOST:PORT)");
    }

    @Test
    void serve_brokerBusWithoutAddress_exitsWith2() {
        assertThat(cli().execute("serve", "--bus", "redis://")).isEqualTo(2);
        assertThat(err.toString()).contains("unknown bus 'redis://'");
        assertThat(cli().execute("serve", "--bus", "kafka://")).isEqualTo(2);
    }

    @Test
    void serve_tooSmallMaxEventBytes_exitsWith2() {
        assertThat(cli().execute("serve", "--max-event-bytes", "10")).isEqualTo(2);
        assertThat(err.toString()).contains("--max-event-bytes must be at least 1024");
    }

    @Test
    void logLevel_isValidatedCaseInsensitively() {
        assertThat(serve("serve", "--log-level", "DEBUG").execution).isNotNull();
        assertThat(cli().execute("--log-level", "loud", "demo")).isEqualTo(2);
    }

    @Test
    void noCommand_exitsWith2() {
        assertThat(cli().execute()).isEqualTo(2);
        assertThat(err.toString()).contains("missing command");
    }

    @Test
    void serve_executionFlags_overrideTheConfigsSettings_andOnlyThoseGiven() {
        ExecutionSettings file = ExecutionSettings.builder().maxParallel(9).timeoutMs(4000).maxRetries(5).build();

        ExecutionSettings s = serve("serve", "--timeout-ms", "2000").execution.settings(file, new ArrayList<>());

        assertThat(s.timeout()).isEqualTo(Duration.ofMillis(2000));
        assertThat(s.maxParallel()).isEqualTo(9);
        assertThat(s.maxRetries()).isEqualTo(5);
    }

    @Test
    void serve_busInMemory_andGatewayAddresses_parse() {
        ServeCommand serve = serve("serve", "--bus", "in-memory", "--gateway", "0.0.0.0:9000", "--token", "t");

        assertThat(serve.bus.scheme()).isEqualTo(BusAddress.IN_MEMORY);
        assertThat(serve.gateway).isEqualTo(new GatewayAddress("0.0.0.0", 9000));
        assertThat(serve.token).isEqualTo("t");
        assertThat(GatewayAddress.parse(":0")).isEqualTo(new GatewayAddress("127.0.0.1", 0));
        assertThat(GatewayAddress.parse("8765")).isEqualTo(new GatewayAddress("127.0.0.1", 8765));
        assertThat(GatewayAddress.parse("[::1]:8765")).isEqualTo(new GatewayAddress("::1", 8765));
    }

    @Test
    void serve_badGatewayAddress_exitsWith2() {
        assertThat(cli().execute("serve", "--gateway", "localhost:http")).isEqualTo(2);
        assertThat(err.toString()).contains("bad gateway address 'localhost:http'");
        assertThat(cli().execute("serve", "--gateway", "127.0.0.1:70000")).isEqualTo(2);
    }

    @Test
    void serve_gatewayAndNoGateway_contradict() {
        assertThat(cli().execute("serve", "--gateway", "127.0.0.1:0", "--no-gateway")).isEqualTo(2);
        assertThat(err.toString()).contains("contradict");
    }

    @Test
    void call_needsANameOrAnEvent() {
        assertThat(cli().execute("call")).isEqualTo(2);
        assertThat(err.toString()).contains("missing NAME");
    }

    @Test
    void tools_toolFlagsNeedLocal() {
        assertThat(cli().execute("tools", "--sample-tools")).isEqualTo(2);
        assertThat(err.toString()).contains("need --local");
    }

    @Test
    void checkConfig_needsAFile() {
        assertThat(cli().execute("check-config")).isEqualTo(2);
    }
}
