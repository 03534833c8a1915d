package dev.toolbus.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.InputAction;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@link InputQuestion}: its checks, and a URL-mode question with a key through the executor: the
 * {@code input_request} carries {@code "mode":"url"} and the URL on the wire, the key stays in process,
 * and the answer reaches the tool without content.
 */
class InputQuestionTest {

    @Test
    void theBuilder_checksWhatItIsGiven() {
        assertThat(InputQuestion.builder("Which city?").key("city").build().mode()).isEqualTo(InputQuestion.Mode.FORM);
        assertThatThrownBy(() -> InputQuestion.builder("q").key("has space")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InputQuestion.builder("q").key("x".repeat(65))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InputQuestion.builder("q").url("ftp://example.org/x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InputQuestion.builder("q").url("/relative")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InputQuestion.builder("q").url("https://e.org/" + "x".repeat(2048)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InputQuestion.builder("q").timeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InputQuestion.builder("q").url("https://e.org/pay")
                .schema(Json.mapper().createObjectNode()).build()).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aUrlModeQuestion_travelsWithItsUrl_andItsKeyStaysInProcess() {
        ToolSpec pay = new ToolSpec(ToolDefinition.builder("pay").description("asks to pay").build(), (args, ctx) ->
                ctx.ask(InputQuestion.builder("Pay 5 EUR").url("https://pay.example/checkout?o=42").key("payment").build())
                        .map(a -> ToolResult.text("paid=" + a.accepted() + " content=" + a.content())));
        try (ToolExecutor executor = ToolExecutor.builder().tool(pay).build()) {
            List<OutboundEvent> events = new CopyOnWriteArrayList<>();
            executor.execute(new ToolCallsEvent("s", "t", List.of(ToolCall.ofJson("c", "pay", "{}")),
                    dev.toolbus.protocol.CallContext.EMPTY, null)).doOnNext(e -> {
                        events.add(e);
                        if (e instanceof InputRequestEvent r) {
                            executor.control(new InputResponseEvent("s", r.inputId(), InputAction.ACCEPT, null))
                                    .subscribeOn(Schedulers.boundedElastic()).subscribe();
                        }
                    }).blockLast(Duration.ofSeconds(10));
            InputRequestEvent asked = events.stream().filter(InputRequestEvent.class::isInstance)
                    .map(InputRequestEvent.class::cast).findFirst().orElseThrow();
            assertThat(asked.urlMode()).isTrue();
            assertThat(asked.url()).isEqualTo("https://pay.example/checkout?o=42");
            assertThat(asked.key()).isEqualTo("payment");
            assertThat(asked.schema()).isNull();
            String wire = EventCodec.defaults().encode(asked);
            assertThat(wire).contains("\"mode\":\"url\"").contains("\"url\":\"https://pay.example/checkout?o=42\"")
                    .doesNotContain("payment").doesNotContain("\"schema\"");
            ToolResultEvent result = events.stream().filter(ToolResultEvent.class::isInstance)
                    .map(ToolResultEvent.class::cast).findFirst().orElseThrow();
            assertThat(result.content()).isEqualTo("paid=true content=null");
        }
    }

    @Test
    void aConversationThatCannotAskForAUrl_failsTheQuestion() {
        ToolConversation formOnly = new ToolConversation() {
            @Override
            public Mono<Void> progress(double progress, Double total, String message) {
                return Mono.empty();
            }

            @Override
            public Mono<Void> send(List<dev.toolbus.protocol.ContentPart> content) {
                return Mono.empty();
            }

            @Override
            public Mono<InputAnswer> ask(String message, com.fasterxml.jackson.databind.JsonNode schema, Duration timeout) {
                return Mono.just(new InputAnswer(InputAnswer.Outcome.ACCEPT, null));
            }
        };
        ToolContext ctx = ToolContext.builder().streamId("s").conversation(formOnly).build();
        assertThat(ctx.ask(InputQuestion.builder("form").key("k").build()).block().accepted()).isTrue();
        assertThatThrownBy(() -> ctx.ask(InputQuestion.builder("go").url("https://e.org/").build()).block())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("URL");
    }
}
