package dev.toolbus.benchmarks.gateway;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import reactor.netty.resources.LoopResources;

/**
 * The load clients' own event loops, a fixed number of threads whatever the machine: the default
 * loops are sized by the core count and shared with anything else in the JVM, which made the client's
 * share of the machine, and with it the measured server's rate, move from run to run.
 */
final class ClientLoops {

    private static final Map<Integer, LoopResources> LOOPS = new ConcurrentHashMap<>();

    private ClientLoops() {
    }

    static LoopResources of(int threads) {
        return LOOPS.computeIfAbsent(threads, n -> LoopResources.create("load-client-" + n, 1, n, true));
    }

    static void dispose() {
        LOOPS.values().forEach(l -> l.disposeLater(Duration.ZERO, Duration.ofSeconds(5)).block(Duration.ofSeconds(10)));
        LOOPS.clear();
    }
}
