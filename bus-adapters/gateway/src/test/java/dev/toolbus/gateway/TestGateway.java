package dev.toolbus.gateway;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Mono;

/** A real gateway on 127.0.0.1 with a small executor, for tests. */
final class TestGateway implements AutoCloseable {

    static final String TOKEN = "test-token-123";

    final PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    final ToolExecutor executor;
    final GatewayServer server;

    private TestGateway(UnaryOperator<Gateway.Builder> custom) {
        executor = ToolExecutor.builder()
                .tools(tools())
                .settings(ExecutionSettings.builder().maxParallel(20).cacheResults(false).build())
                .meterRegistry(meters)
                .build();
        server = custom.apply(Gateway.builder().executor(executor).token(TOKEN).meterRegistry(meters)).build().start();
    }

    static TestGateway start() {
        return new TestGateway(b -> b);
    }

    static TestGateway start(UnaryOperator<Gateway.Builder> custom) {
        return new TestGateway(custom);
    }

    /** echo(text), sleep(ms) on Mono.delay, blob(kb): kb KiB of text. */
    static List<ToolSpec> tools() {
        ToolSpec echo = new ToolSpec(ToolDefinition.builder("echo").description("Echo the text back")
                .parameter(ToolParameter.of("text", ToolParamType.STRING, "text to echo")).build(),
                (a, c) -> Mono.just(ToolResult.text(a.string("text"))));
        ToolSpec sleep = new ToolSpec(ToolDefinition.builder("sleep").description("Answer after ms milliseconds")
                .parameter(ToolParameter.of("ms", ToolParamType.INTEGER, "milliseconds")).build(),
                (a, c) -> Mono.delay(Duration.ofMillis(a.integer("ms", 0)))
                        .map(x -> ToolResult.text("slept " + a.integer("ms", 0))));
        ToolSpec blob = new ToolSpec(ToolDefinition.builder("blob").description("Answer kb KiB of text")
                .parameter(ToolParameter.of("kb", ToolParamType.INTEGER, "size in KiB")).build(),
                (a, c) -> Mono.fromSupplier(() -> ToolResult.text("x".repeat((int) a.integer("kb", 1) * 1024))));
        return List.of(echo, sleep, blob);
    }

    String baseUrl() {
        return server.baseUrl();
    }

    int port() {
        return server.port();
    }

    NettyGatewayServer impl() {
        return (NettyGatewayServer) server;
    }

    double counter(String name, String... tags) {
        var c = meters.find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    @Override
    public void close() {
        server.close();
        executor.closeGracefully().block(Duration.ofSeconds(10));
    }
}
