package dev.toolbus.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.Json;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.time.Duration;
import java.util.function.Consumer;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;

/** A reactor-netty HTTP client for the tests. */
final class Http {

    /** A whole response. */
    record Response(int status, HttpHeaders headers, String body) {
        JsonNode json() {
            try {
                return Json.mapper().readTree(body);
            } catch (Exception e) {
                throw new AssertionError("not JSON: " + body, e);
            }
        }

        String contentType() {
            return headers.get(HttpHeaderNames.CONTENT_TYPE);
        }
    }

    private final HttpClient client;

    Http(String baseUrl) {
        this.client = HttpClient.create().baseUrl(baseUrl).responseTimeout(Duration.ofSeconds(20));
    }

    Response get(String uri, String token) {
        return client.headers(auth(token)).get().uri(uri)
                .responseSingle((res, body) -> body.asString().defaultIfEmpty("")
                        .map(s -> new Response(res.status().code(), res.responseHeaders(), s)))
                .block(Duration.ofSeconds(30));
    }

    Response post(String uri, String token, String body) {
        return post(uri, token, body, h -> { });
    }

    Response post(String uri, String token, String body, Consumer<HttpHeaders> headers) {
        return client.headers(auth(token).andThen(headers)).post().uri(uri)
                .send(ByteBufFlux.fromString(Mono.just(body)))
                .responseSingle((res, b) -> b.asString().defaultIfEmpty("")
                        .map(s -> new Response(res.status().code(), res.responseHeaders(), s)))
                .block(Duration.ofSeconds(30));
    }

    private static Consumer<HttpHeaders> auth(String token) {
        return h -> {
            if (token != null) {
                h.set(HttpHeaderNames.AUTHORIZATION, "Bearer " + token);
            }
        };
    }
}
