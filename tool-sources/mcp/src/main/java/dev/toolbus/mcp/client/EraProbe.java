package dev.toolbus.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.mcp.internal.Wire;
import io.modelcontextprotocol.json.McpJsonMapper;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Which era an MCP server speaks, as the 2026-07-28 versioning rules tell a client to find out: a
 * {@code server/discover} request with the modern {@code _meta}; a {@code DiscoverResult} offering
 * 2026-07-28, or an error only a modern server sends (-32022 naming 2026-07-28, -32021, -32020), means
 * modern; anything else (another error, silence until the timeout, an exit, an HTTP status without a
 * modern body) means legacy. Over stdio the probe runs on a short-lived copy of the server process,
 * so that a legacy server starts fresh for its {@code initialize}.
 */
final class EraProbe {

    private static final Logger log = LoggerFactory.getLogger(EraProbe.class);

    private EraProbe() {
    }

    static Mono<Boolean> modern(McpServerConfig config, McpToolSource.Settings settings, McpJsonMapper json,
                                ObjectMapper mapper) {
        return switch (config.transport()) {
            case SSE -> Mono.just(false);
            case HTTP -> {
                HttpChannel http = new HttpChannel(config, mapper, settings.maxLineBytes(), settings.connectTimeout());
                yield probe(config, new ModernSession(config, http, mapper), settings.probeTimeout());
            }
            case STDIO -> Mono.defer(() -> {
                StdioChannel sibling = new StdioChannel(config, json, mapper, settings.maxLineBytes(), settings.closeGrace(),
                        settings.initTimeout(), (server, line) -> { }, "era probe");
                return sibling.start().then(probe(config, new ModernSession(config, sibling, mapper),
                                settings.probeTimeout()))
                        .onErrorReturn(false)
                        .flatMap(modern -> sibling.close().onErrorResume(e -> Mono.empty()).thenReturn(modern));
            });
        };
    }

    private static Mono<Boolean> probe(McpServerConfig config, ModernSession session, Duration timeout) {
        return session.channel.exchange(session.request("server/discover", Wire.object(), null, false))
                .filter(Wire::isResponse).next()
                .timeout(timeout)
                .map(EraProbe::modern)
                .defaultIfEmpty(false)
                .onErrorResume(e -> {
                    log.debug("MCP server '{}': the server/discover probe got no modern answer ({}): legacy", config.name(),
                            e.toString());
                    return Mono.just(false);
                })
                .doOnNext(m -> log.info("MCP server '{}' speaks {}", config.name(), m ? Wire.MODERN
                        : "2025-11-25 or earlier (initialize)"));
    }

    /** Whether a response to {@code server/discover} is a modern server's. */
    static boolean modern(JsonNode response) {
        JsonNode versions = response.path("result").path("supportedVersions");
        for (JsonNode v : versions) {
            if (Wire.MODERN.equals(v.asText())) {
                return true;
            }
        }
        int code = Wire.errorCode(response);
        if (code == Wire.UNSUPPORTED_VERSION) {
            for (JsonNode v : response.path("error").path("data").path("supported")) {
                if (Wire.MODERN.equals(v.asText())) {
                    return true;
                }
            }
            return false;
        }
        return code == Wire.HEADER_MISMATCH || code == Wire.MISSING_CAPABILITY;
    }
}
