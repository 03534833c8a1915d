package dev.toolbus.benchmarks;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.service.tool.DefaultToolExecutor;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.springframework.ai.support.ToolCallbacks;
import org.springframework.ai.tool.ToolCallback;

/**
 * One call per invocation, on the benchmark thread, from the tool name and the same JSON string:
 * the Jackson floor, LangChain4j's {@code DefaultToolExecutor} and Spring AI's
 * {@code MethodToolCallback}. Both peers are synchronous and run the method on the caller's thread,
 * so there is nothing to parallelise here; each is looked up by name in a map first, as their
 * frameworks do.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.AverageTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PeerDispatchBenchmark {

    /** The echo tool as a LangChain4j plugin ({@code @Tool} method; parameter names from -parameters). */
    public static final class LangChain4jTools {
        @dev.langchain4j.agent.tool.Tool("Returns the text it is given.")
        public String echo(@P("The text to return.") String text) {
            return Workload.echo(text);
        }
    }

    /** The echo tool as a Spring AI plugin. */
    public static final class SpringAiTools {
        @org.springframework.ai.tool.annotation.Tool(name = "echo", description = "Returns the text it is given.")
        public String echo(@org.springframework.ai.tool.annotation.ToolParam(description = "The text to return.") String text) {
            return Workload.echo(text);
        }
    }

    private String name;
    private String json;
    private HandDispatch hand;
    private final Map<String, dev.langchain4j.service.tool.ToolExecutor> langchain4j = new HashMap<>();
    private ToolExecutionRequest langchain4jRequest;
    private Object memoryId;
    private final Map<String, ToolCallback> springAi = new HashMap<>();

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        name = Workload.TOOL;
        json = Workload.ARGS_JSON;
        hand = new HandDispatch();

        // As LangChain4j's AiServices builds the executor of an @Tool method (ToolService.createToolExecutor).
        LangChain4jTools lc = new LangChain4jTools();
        Method m = LangChain4jTools.class.getMethod("echo", String.class);
        langchain4j.put(name, DefaultToolExecutor.builder()
                .object(lc)
                .originalMethod(m)
                .methodToInvoke(m)
                .wrapToolArgumentsExceptions(true)
                .propagateToolExecutionExceptions(true)
                .build());
        // The model's request as the chat model response parser hands it over.
        langchain4jRequest = ToolExecutionRequest.builder().id("call_1").name(name).arguments(json).build();
        memoryId = "default";

        // As Spring AI builds callbacks for @Tool methods (MethodToolCallbackProvider / ToolCallbacks.from).
        for (ToolCallback cb : ToolCallbacks.from(new SpringAiTools())) {
            springAi.put(cb.getToolDefinition().name(), cb);
        }

        check("jackson", jacksonParseLookup());
        check("langchain4j", langchain4j());
        String s = springAi();
        // Spring AI's default result converter writes the String result as JSON, quotes included.
        check("springAi", s.startsWith("\"") ? s.substring(1, s.length() - 1) : s);
    }

    private static void check(String what, String result) {
        if (!Workload.EXPECTED.equals(result)) {
            throw new IllegalStateException(what + " returned " + result);
        }
    }

    /** The floor: Jackson 2 parse of the argument string, name lookup, call. */
    @Benchmark
    public String jacksonParseLookup() throws Exception {
        return hand.dispatch(name, json);
    }

    /** LangChain4j 1.19.0 {@code DefaultToolExecutor.execute(request, memoryId)}. */
    @Benchmark
    public String langchain4j() {
        return langchain4j.get(name).execute(langchain4jRequest, memoryId);
    }

    /** Spring AI 2.0.1 {@code MethodToolCallback.call(json)}. */
    @Benchmark
    public String springAi() {
        return springAi.get(name).call(json);
    }
}
