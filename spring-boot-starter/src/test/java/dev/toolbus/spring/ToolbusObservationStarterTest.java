package dev.toolbus.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.TraceContext;
import dev.toolbus.protocol.Json;
import dev.toolbus.tool.Param;
import dev.toolbus.tool.Tool;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;

/** The starter hands the application's ObservationRegistry (Spring Boot's, with its handlers) to the executor. */
class ToolbusObservationStarterTest {

    private static ConfigurableApplicationContext context;

    @SpringBootApplication
    @Import(Adder.class)
    static class App {
        /** Spring Boot registers ObservationHandler beans with its ObservationRegistry. */
        @Bean
        Recorder recorder() {
            return new Recorder();
        }
    }

    @Component
    static class Adder {
        @Tool(name = "add", description = "Adds two numbers.")
        public long add(@Param(description = "a") long a, @Param(description = "b") long b) {
            return a + b;
        }
    }

    /** Records the observations that stop. */
    static class Recorder implements ObservationHandler<Observation.Context> {
        final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }

        @Override
        public void onStop(Observation.Context context) {
            stopped.add(context);
        }
    }

    @BeforeAll
    static void start() {
        context = new SpringApplication(App.class).run("--server.port=0", "--spring.main.web-application-type=none");
    }

    @AfterAll
    static void stop() {
        if (context != null && context.isActive()) {
            context.close();
        }
    }

    @Test
    void turnsAndCallsAreObservedByTheApplicationsRegistry() {
        ToolExecutor executor = context.getBean(ToolExecutor.class);
        TraceContext client = new TraceContext("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", null);
        List<OutboundEvent> events = executor.execute(new ToolCallsEvent("s", "t-obs", List.of(
                ToolCall.of("c1", "add", Json.mapper().createObjectNode().put("a", 2).put("b", 40))),
                CallContext.EMPTY, null, client)).collectList().block(Duration.ofSeconds(10));
        assertThat(events).hasSize(2);
        Recorder recorder = context.getBean(Recorder.class);
        await().atMost(Duration.ofSeconds(5)).until(() -> recorder.stopped.stream()
                .anyMatch(c -> c.getName().equals("toolbus.turn")));
        Observation.Context call = recorder.stopped.stream().filter(c -> c.getName().equals("toolbus.call"))
                .findFirst().orElseThrow();
        Observation.Context turn = recorder.stopped.stream().filter(c -> c.getName().equals("toolbus.turn"))
                .findFirst().orElseThrow();
        assertThat(call.getLowCardinalityKeyValue("gen_ai.tool.name").getValue()).isEqualTo("add");
        assertThat(call.getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("ok");
        assertThat(call.getParentObservation().getContextView()).isSameAs(turn);
        assertThat(turn.getHighCardinalityKeyValue("turn_id").getValue()).isEqualTo("t-obs");
        // no tracer in this application: the events carry the client's trace context on
        assertThat(events).allSatisfy(e -> assertThat(e.trace()).isEqualTo(client));
    }
}
