package dev.toolbus.executor.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.spi.ToolDispatch;
import dev.toolbus.tool.ToolSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The dispatch step of {@code list_tools}: asks the {@link ToolDispatch} which of the allowed tools the
 * text needs, caches the choice briefly per stream and text, and falls back to every allowed tool when
 * the choice fails. Bounded: at most {@link #MAX_ENTRIES} cached choices and {@link #MAX_WEIGHT} bytes
 * of cached text.
 */
final class DispatchedListing {

    private static final Logger log = LoggerFactory.getLogger(DispatchedListing.class);
    static final int MAX_ENTRIES = 10_000;
    static final long MAX_WEIGHT = 8L * 1024 * 1024;
    /** Longer texts are not cached (their key would cost more than the choice saves). */
    static final int MAX_CACHED_TEXT = 16 * 1024;

    private final ToolDispatch dispatch;
    private final Cache<String, ToolDispatch.Choice> choices;
    private final Map<String, Counter> outcomes = new java.util.concurrent.ConcurrentHashMap<>();
    private final MeterRegistry meters;

    DispatchedListing(ToolDispatch dispatch, Duration cacheTtl, LongSupplier nanoClock, MeterRegistry meters) {
        this.dispatch = dispatch;
        this.meters = meters;
        Ticker ticker = nanoClock::getAsLong;
        this.choices = cacheTtl.isZero() ? null : Caffeine.newBuilder()
                .expireAfterWrite(cacheTtl.toNanos(), TimeUnit.NANOSECONDS)
                .maximumWeight(MAX_WEIGHT)
                .weigher((String k, ToolDispatch.Choice v) -> k.length() * 2 + 64 * (v.tools().size() + 1))
                .ticker(ticker).executor(Runnable::run).build();
    }

    /**
     * The allowed entries narrowed to the choice for this text, or all of them when the choice fails.
     *
     * @param allowed the entries the policy lets the session see, in listing order
     */
    Mono<List<ToolRegistry.Entry>> narrow(String streamId, String text, dev.toolbus.protocol.CallContext context,
                                         List<ToolRegistry.Entry> allowed, dev.toolbus.text.DescriptionLocale locale) {
        String key = text.length() > MAX_CACHED_TEXT ? null : streamId + '\u0000' + text;
        ToolDispatch.Choice cached = key == null || choices == null ? null : choices.getIfPresent(key);
        if (cached != null) {
            count("cached");
            return Mono.just(apply(cached, allowed));
        }
        Map<String, String> descriptions = new LinkedHashMap<>();
        for (ToolRegistry.Entry e : allowed) {
            descriptions.put(e.tool().definition().name(), e.tool().definition().description(locale));
        }
        Mono<ToolDispatch.Choice> asked;
        try {
            asked = dispatch.choose(new ToolDispatch.Query(streamId, text, context, descriptions));
        } catch (RuntimeException e) {
            asked = Mono.error(e);
        }
        return asked
                .map(choice -> {
                    if (choice.tools().isEmpty()) {
                        return fallback(streamId, "empty", "the dispatcher chose no tool group", allowed);
                    }
                    List<ToolRegistry.Entry> narrowed = apply(choice, allowed);
                    if (key != null && choices != null) {
                        choices.put(key, choice);
                    }
                    count("chosen");
                    log.debug("dispatch for stream {} chose {}: {} of {} tools", streamId, choice.groups(),
                            narrowed.size(), allowed.size());
                    return narrowed;
                })
                .switchIfEmpty(Mono.fromSupplier(() -> fallback(streamId, "empty", "the dispatcher made no choice",
                        allowed)))
                .onErrorResume(e -> Mono.just(fallback(streamId, reason(e), e.getMessage(), allowed)));
    }

    /** The chosen tools, plus the core tools of no group, in listing order; never a tool outside {@code allowed}. */
    private static List<ToolRegistry.Entry> apply(ToolDispatch.Choice choice, List<ToolRegistry.Entry> allowed) {
        List<ToolRegistry.Entry> out = new ArrayList<>(allowed.size());
        for (ToolRegistry.Entry e : allowed) {
            String name = e.tool().definition().name();
            if (choice.tools().contains(name)
                    || (e.source() == ToolSource.CORE && !choice.groupedTools().contains(name))) {
                out.add(e);
            }
        }
        return out;
    }

    private List<ToolRegistry.Entry> fallback(String streamId, String reason, String message,
                                              List<ToolRegistry.Entry> allowed) {
        count("fallback_" + reason);
        log.warn("dispatch for stream {} failed ({}): {}; offering all {} allowed tools", streamId, reason, message,
                allowed.size());
        return allowed;
    }

    private static String reason(Throwable e) {
        if (e instanceof ToolDispatch.DispatchException d) {
            return d.failure().name().toLowerCase(java.util.Locale.ROOT);
        }
        return e instanceof TimeoutException ? "timeout" : "error";
    }

    private void count(String outcome) {
        outcomes.computeIfAbsent(outcome, o -> Counter.builder("toolbus.dispatch.decisions")
                .description("list_tools requests narrowed by dispatch, by outcome").tag("outcome", o)
                .register(meters)).increment();
    }
}
