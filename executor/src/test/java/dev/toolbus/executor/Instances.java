package dev.toolbus.executor;

import dev.toolbus.executor.state.InMemoryTurnState;
import dev.toolbus.spi.CallJournal;
import dev.toolbus.spi.ControlRequests;
import dev.toolbus.spi.CutResults;
import dev.toolbus.spi.SessionGrants;
import dev.toolbus.spi.TurnLedger;
import dev.toolbus.spi.TurnState;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * Instances of a cluster in one process, for the turn-state tests: one {@link InMemoryTurnState} on a
 * virtual clock, shared by executors that each see it through their own {@link View}. Killing a view is
 * a {@code kill -9} of its instance as the state sees it: nothing it does reaches the state any more
 * (every facet call then never completes), and it hears no more answers. Its executor object lives on,
 * inert; the test builds the next instance on the same state.
 */
final class Instances {

    final VirtualTimeScheduler vts = VirtualTimeScheduler.create();
    final InMemoryTurnState state;

    Instances() {
        this(InMemoryTurnState.builder());
    }

    Instances(InMemoryTurnState.Builder state) {
        this.state = state.nanoClock(() -> vts.now(TimeUnit.NANOSECONDS))
                .epochMillis(() -> vts.now(TimeUnit.MILLISECONDS)).build();
    }

    /** A view of the shared state, for one instance. */
    View view() {
        return new View(state);
    }

    /** One instance's window on the state: can be killed, counts the calls it makes, can hold or fail a facet's method. */
    static final class View {
        private final Sinks.Empty<Void> killed = Sinks.empty();
        private volatile boolean dead;
        /** Calls made, by {@code facet.method}. */
        final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
        /** Per {@code facet.method}, what replaces the call's Mono (a failure, a delay); absent: the call itself. */
        final Map<String, Function<Mono<?>, Mono<?>>> around = new ConcurrentHashMap<>();
        final TurnState state;

        private View(TurnState s) {
            this.state = TurnState.builder()
                    .ledger(proxy(TurnLedger.class, "ledger", s.ledger()))
                    .journal(proxy(CallJournal.class, "journal", s.journal()))
                    .requests(proxy(ControlRequests.class, "requests", s.requests()))
                    .grants(proxy(SessionGrants.class, "grants", s.grants()))
                    .cutResults(proxy(CutResults.class, "cutResults", s.cutResults()))
                    .build();
        }

        /** The instance dies: nothing it does reaches the state from now on. */
        void kill() {
            dead = true;
            killed.tryEmitEmpty();
        }

        int count(String facetMethod) {
            AtomicInteger n = calls.get(facetMethod);
            return n == null ? 0 : n.get();
        }

        private <T> T proxy(Class<T> type, String facet, T target) {
            return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, m, args) -> {
                if (m.getDeclaringClass() == Object.class) {
                    return m.getName().equals("equals") ? p == args[0] : m.invoke(target, args);
                }
                String name = facet + "." + m.getName();
                if (dead) {
                    return Mono.class.isAssignableFrom(m.getReturnType()) ? Mono.never()
                            : Flux.class.isAssignableFrom(m.getReturnType()) ? Flux.never() : null;
                }
                calls.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
                Object r;
                try {
                    r = m.invoke(target, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
                if (r instanceof Flux<?> f) {
                    return f.takeUntilOther(killed.asMono());
                }
                Function<Mono<?>, Mono<?>> a = around.get(name);
                if (r instanceof Mono<?> mono && a != null) {
                    return a.apply(mono);
                }
                return r;
            }));
        }
    }
}
