package dev.toolbus.executor.state;

import dev.toolbus.internal.Trampoline;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * Keeps a stream's turns in arrival order through the turn ledger's admission. A shared ledger answers
 * asynchronously (a Redis round trip), and a turn that joins a run on another instance waits for it:
 * without this, a later turn of the same stream could reach its lane first. Here a turn's admission
 * starts only once the stream's previous turn is admitted, that is, queued in its lane, answered from
 * the ledger, or joined and finished. A stream is in the map only while one of its turns is being
 * admitted; later turns wait on it without holding a thread.
 */
final class AdmissionOrder {

    /** Per stream, the admission of its latest turn: done once that turn is admitted. */
    private final ConcurrentHashMap<String, CompletableFuture<Void>> tails = new ConcurrentHashMap<>();

    /**
     * Runs {@code turn} after the previous turn of {@code streamId} was admitted. The turn gets the
     * callback to call once it is admitted itself; it is called anyway when the turn ends or is
     * cancelled, so a failing turn never holds its stream's later turns.
     */
    Mono<Void> inOrder(String streamId, Function<Runnable, Mono<Void>> turn) {
        return Mono.defer(() -> {
            CompletableFuture<Void> mine = new CompletableFuture<>();
            CompletableFuture<Void> previous = tails.put(streamId, mine);
            Runnable admitted = () -> {
                if (mine.complete(null)) {
                    tails.remove(streamId, mine);
                }
            };
            Mono<Void> run = Mono.defer(() -> turn.apply(admitted)).doFinally(s -> admitted.run());
            if (previous == null || previous.isDone()) {
                return run;
            }
            return Mono.<Void>create(sink -> previous.whenComplete((v, e) -> Trampoline.run(sink::success)))
                    .then(run)
                    .doFinally(s -> admitted.run());
        });
    }

    /**
     * Subscribes {@code source} and, once that subscription has returned (a turn submitted to its lane
     * during it), runs {@code signal}.
     */
    static Mono<Void> signalAfterSubscribe(Mono<Void> source, Runnable signal) {
        return Mono.create(sink -> {
            Disposable d = source.contextWrite(sink.contextView()).subscribe(null, sink::error, sink::success);
            sink.onDispose(d);
            signal.run();
        });
    }

    /** Streams with an admission under way (for tests). */
    int pending() {
        return tails.size();
    }
}
