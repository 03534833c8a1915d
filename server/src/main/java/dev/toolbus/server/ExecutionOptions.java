package dev.toolbus.server;

import dev.toolbus.executor.ExecutionSettings;
import java.io.PrintStream;
import picocli.CommandLine.Option;

/**
 * The execution flags shared by {@code serve} and {@code demo}. Values go to
 * {@link ExecutionSettings.Builder} as given, so a flag follows the same fallback rules as a config
 * file: an out-of-range or unreadable value falls back and is reported as a warning, never a failure.
 */
final class ExecutionOptions {

    @Option(names = "--max-parallel", paramLabel = "N",
            description = "Handlers running at once across all streams, 1..20 (default: ${DEFAULT-VALUE}).",
            defaultValue = "" + ExecutionSettings.DEFAULT_MAX_PARALLEL)
    String maxParallel;

    @Option(names = "--timeout-ms", paramLabel = "MS",
            description = "Per-call timeout in milliseconds, at least 1000 (default: ${DEFAULT-VALUE}).",
            defaultValue = "" + ExecutionSettings.DEFAULT_TIMEOUT_MS)
    String timeoutMs;

    @Option(names = "--retry-on-error", paramLabel = "BOOL", arity = "0..1", fallbackValue = "true",
            description = "Retry exceptions and timeouts of tools that are not side-effecting "
                    + "(default: ${DEFAULT-VALUE}).",
            defaultValue = "false")
    String retryOnError;

    @Option(names = "--max-retries", paramLabel = "N",
            description = "Retries after the first attempt, 0..10 (default: ${DEFAULT-VALUE}).",
            defaultValue = "" + ExecutionSettings.DEFAULT_MAX_RETRIES)
    String maxRetries;

    @Option(names = "--cache-ttl-ms", paramLabel = "MS",
            description = "How long a cached result lives; 0 disables the cache (default: ${DEFAULT-VALUE}).",
            defaultValue = "" + ExecutionSettings.DEFAULT_CACHE_TTL_MS)
    String cacheTtlMs;

    @Option(names = "--locale", paramLabel = "en|zh",
            description = "Language of generated text (default: ${DEFAULT-VALUE}).",
            defaultValue = "en")
    String locale;

    /** The settings these flags give. */
    ExecutionSettings settings() {
        return ExecutionSettings.builder()
                .maxParallel(maxParallel)
                .timeoutMs(timeoutMs)
                .retryOnError(retryOnError)
                .maxRetries(maxRetries)
                .cacheTtlMs(cacheTtlMs)
                .locale(locale)
                .build();
    }

    /** Prints each fallback the settings applied. */
    static void printWarnings(ExecutionSettings settings, PrintStream err) {
        for (String w : settings.warnings()) {
            err.println("toolbus: warning: " + w);
        }
    }
}
