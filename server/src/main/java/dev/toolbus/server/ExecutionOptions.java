package dev.toolbus.server;

import dev.toolbus.config.ExecutionSection;
import dev.toolbus.executor.settings.ExecutionSettings;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The execution flags shared by {@code serve} and {@code demo}. Values go to
 * {@link ExecutionSettings.Builder} as given, so a flag follows the same fallback rules as a config
 * file: an out-of-range or unreadable value falls back and is reported as a warning, never a failure.
 * A flag that is not given leaves the base value (the config file's, or the default) alone.
 */
final class ExecutionOptions {

    @Option(names = "--max-parallel", paramLabel = "N",
            description = "Handlers running at once across all streams, 1..20 (default: "
                    + ExecutionSettings.DEFAULT_MAX_PARALLEL + " or the config's execution.maxParallel).")
    String maxParallel;

    @Option(names = "--timeout-ms", paramLabel = "MS",
            description = "Per-call timeout in milliseconds, at least 1000 (default: "
                    + ExecutionSettings.DEFAULT_TIMEOUT_MS + " or the config's execution.timeout).")
    String timeoutMs;

    @Option(names = "--retry-on-error", paramLabel = "BOOL", arity = "0..1", fallbackValue = "true",
            description = "Retry exceptions and timeouts of tools that are not side-effecting "
                    + "(default: false or the config's execution.retryOnError).")
    String retryOnError;

    @Option(names = "--max-retries", paramLabel = "N",
            description = "Retries after the first attempt, 0..10 (default: "
                    + ExecutionSettings.DEFAULT_MAX_RETRIES + " or the config's execution.maxRetries).")
    String maxRetries;

    @Option(names = "--cache-ttl-ms", paramLabel = "MS",
            description = "How long a cached result lives; 0 disables the cache (default: "
                    + ExecutionSettings.DEFAULT_CACHE_TTL_MS + " or the config's execution.cacheTTL).")
    String cacheTtlMs;

    @Option(names = "--progress-interval-ms", paramLabel = "MS",
            description = "Shortest time between two tool_progress events of one call; 0 for no limit (default: "
                    + ExecutionSettings.DEFAULT_PROGRESS_INTERVAL_MS + " or the config's execution.progressIntervalMs).")
    String progressIntervalMs;

    @Option(names = "--input-timeout-ms", paramLabel = "MS",
            description = "How long a tool's question waits for the user's answer, at least 1000 (default: "
                    + ExecutionSettings.DEFAULT_INPUT_TIMEOUT_MS + " or the config's execution.inputTimeoutMs).")
    String inputTimeoutMs;

    @Option(names = "--max-result-chars", paramLabel = "N",
            description = "The most characters of a result's text the model gets; longer ones are cut and readable "
                    + "with read_tool_result; 0 for no limit (default: " + dev.toolbus.executor.settings.ResultLimits.DEFAULT_MAX_CHARS
                    + " or the config's execution.maxResultChars).")
    String maxResultChars;

    @Option(names = "--locale", paramLabel = "en|zh",
            description = "Language of generated text (default: en or the config's execution.locale).")
    String locale;

    /** The settings these flags give over the defaults; each fallback is added to {@code warnings}. */
    ExecutionSettings settings(List<String> warnings) {
        return settings(ExecutionSettings.defaults(), warnings);
    }

    /**
     * The settings these flags give over {@code base}: each flag given replaces the base value, read as
     * the config file's {@code execution} keys are ({@link ExecutionSection}); each fallback is added to
     * {@code warnings}.
     */
    ExecutionSettings settings(ExecutionSettings base, List<String> warnings) {
        Map<String, Object> given = new LinkedHashMap<>();
        put(given, "maxParallel", maxParallel);
        put(given, "timeout", timeoutMs);
        put(given, "retryOnError", retryOnError);
        put(given, "maxRetries", maxRetries);
        put(given, "cacheTTL", cacheTtlMs);
        put(given, "locale", locale);
        put(given, "progressIntervalMs", progressIntervalMs);
        put(given, "inputTimeoutMs", inputTimeoutMs);
        put(given, "maxResultChars", maxResultChars);
        return ExecutionSection.read(base, given, warnings);
    }

    private static void put(Map<String, Object> given, String key, String value) {
        if (value != null) {
            given.put(key, value);
        }
    }

    /** Prints each fallback the flags applied. */
    static void printWarnings(List<String> warnings, PrintStream err) {
        for (String w : warnings) {
            err.println("toolbus: warning: " + w);
        }
    }
}
