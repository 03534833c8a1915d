package dev.toolbus.bus.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.ScriptOutputType;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import reactor.core.publisher.Mono;

/** Runs a Lua script by its digest, loading it with {@code EVAL} when the broker lost it. */
final class Scripts {

    private Scripts() {
    }

    /**
     * {@code EVALSHA} of a script answering a list; after a broker restart (or {@code SCRIPT FLUSH}) the
     * script is gone, and {@code EVAL} sends it again. Other failures fail the future, unwrapped.
     */
    static CompletableFuture<List<Object>> many(RedisAsyncCommands<String, byte[]> commands, String sha, String script,
                                                String[] keys, byte[]... args) {
        return commands.<List<Object>>evalsha(sha, ScriptOutputType.MULTI, keys, args).toCompletableFuture()
                .exceptionallyCompose(e -> {
                    Throwable cause = cause(e);
                    return cause instanceof RedisNoScriptException
                            ? commands.<List<Object>>eval(script, ScriptOutputType.MULTI, keys, args).toCompletableFuture()
                            : CompletableFuture.failedFuture(cause);
                });
    }

    /** {@code EVALSHA} of a script answering a string (bulk), with the same {@code EVAL} fallback. */
    static CompletableFuture<byte[]> value(RedisAsyncCommands<String, byte[]> commands, String sha, String script,
                                          String[] keys, byte[]... args) {
        return commands.<byte[]>evalsha(sha, ScriptOutputType.VALUE, keys, args).toCompletableFuture()
                .exceptionallyCompose(e -> {
                    Throwable cause = cause(e);
                    return cause instanceof RedisNoScriptException
                            ? commands.<byte[]>eval(script, ScriptOutputType.VALUE, keys, args).toCompletableFuture()
                            : CompletableFuture.failedFuture(cause);
                });
    }

    /** {@code EVALSHA} of a script answering an integer, with the same {@code EVAL} fallback. */
    static Mono<Long> one(RedisAsyncCommands<String, byte[]> commands, String sha, String script, String[] keys,
                          byte[]... args) {
        return Mono.defer(() -> Mono.fromCompletionStage(
                        commands.<Long>evalsha(sha, ScriptOutputType.INTEGER, keys, args)))
                .onErrorResume(RedisNoScriptException.class, e -> Mono.fromCompletionStage(
                        commands.<Long>eval(script, ScriptOutputType.INTEGER, keys, args)));
    }

    /** The failure a future's {@link CompletionException} carries. */
    static Throwable cause(Throwable e) {
        return e instanceof CompletionException c && c.getCause() != null ? c.getCause() : e;
    }
}
