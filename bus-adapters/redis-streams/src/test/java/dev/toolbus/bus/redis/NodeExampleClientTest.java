package dev.toolbus.bus.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.bus.testing.NodeExamples;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.method.Tools;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** docs/examples/node/redis-turn.js (ioredis) against a real Redis and an executor on this bus. */
class NodeExampleClientTest {

    @Test
    void redisExampleClient_publishesATurnAndPrintsItsResults() throws Exception {
        try (RedisTestSupport redis = RedisTestSupport.require()) {
            NodeExamples.require();
            RedisStreamsBus bus = RedisStreamsBus.fromUri(redis.url, redis.config().build());
            ToolExecutor executor = ToolExecutor.builder()
                    .tool(Tools.function("echo", "Returns its arguments", json -> json)).build();
            try {
                executor.attach(bus);
                NodeExamples.Result r = NodeExamples.run(List.of("node", "redis-turn.js", "node:chat:1", "hi there"),
                        Map.of("TOOLBUS_REDIS_URL", redis.url,
                                "TOOLBUS_CALLS_STREAM", redis.prefix + "calls",
                                "TOOLBUS_RESULTS_KEY", redis.prefix + "results:{stream_id}"), 60);
                assertThat(r.exitCode()).as(r.stderr()).isZero();
                List<String> lines = r.stdout().lines().toList();
                assertThat(lines).hasSize(3);
                assertThat(lines.get(0)).contains("\"type\":\"tool_result\"", "\"stream_id\":\"node:chat:1\"",
                        "-1\"", "hi there", "\"is_error\":false");
                assertThat(lines.get(1)).contains("\"type\":\"tool_result\"", "-2\"", "HI THERE");
                assertThat(lines.get(2)).contains("\"type\":\"turn_completed\"", "\"error_count\":0");
            } finally {
                bus.closeGracefully().block(Duration.ofSeconds(10));
                executor.close();
            }
        }
    }
}
