package dev.toolbus.executor.internal;

import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.spi.CallJournal;
import dev.toolbus.spi.CallKey;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The journal writes of one executor, batched: per journal at most one {@code begin} and one
 * {@code finish} are on the wire; what comes meanwhile waits and goes in the next one, together. A turn
 * hands the calls that reach the journal while it starts in one list (one round trip a wave); a store
 * answering synchronously (in memory) sees every request alone. Callbacks run outside any lock here.
 */
final class JournalBatches {

    /** A call waiting for its journal entry (or the error that stops it). */
    record Begin(CallKey key, BiConsumer<CallJournal.Entry, Throwable> done) {
    }

    /** A call whose events wait to be recorded. */
    private record Finish(CallKey key, List<OutboundEvent> events, Consumer<Throwable> done) {
    }

    private final ConcurrentHashMap<CallJournal, Lane> lanes = new ConcurrentHashMap<>(4);

    /** Begins the calls (one wave). */
    void begin(CallJournal journal, List<Begin> wave) {
        if (!wave.isEmpty()) {
            lane(journal).begin(wave);
        }
    }

    /** Records a call's events; {@code done} gets the error, or {@code null}. */
    void finish(CallJournal journal, CallKey key, List<OutboundEvent> events, Consumer<Throwable> done) {
        lane(journal).finish(new Finish(key, events, done));
    }

    private Lane lane(CallJournal journal) {
        return lanes.computeIfAbsent(journal, Lane::new);
    }

    /** One journal's writes. */
    private static final class Lane {
        private final CallJournal journal;
        private List<Begin> queuedBegins;
        private boolean beginning;
        private List<Finish> queuedFinishes;
        private boolean finishing;

        Lane(CallJournal journal) {
            this.journal = journal;
        }

        void begin(List<Begin> wave) {
            synchronized (this) {
                if (beginning) {
                    if (queuedBegins == null) {
                        queuedBegins = new ArrayList<>(wave.size());
                    }
                    queuedBegins.addAll(wave);
                    return;
                }
                beginning = true;
            }
            sendBegins(wave);
        }

        private void sendBegins(List<Begin> wave) {
            List<CallKey> keys = new ArrayList<>(wave.size());
            for (Begin b : wave) {
                if (!keys.contains(b.key())) {
                    keys.add(b.key());
                }
            }
            reactor.core.publisher.Mono<Map<CallKey, CallJournal.Entry>> m;
            try {
                m = journal.begin(keys);
            } catch (Throwable e) {
                m = reactor.core.publisher.Mono.error(e);
            }
            boolean[] answered = new boolean[1];
            m.subscribe(entries -> {
                answered[0] = true;
                for (Begin b : wave) {
                    CallJournal.Entry e = entries.get(b.key());
                    deliver(b, e, e == null ? new IllegalStateException("the journal gave no entry for a call") : null);
                }
            }, err -> {
                for (Begin b : wave) {
                    deliver(b, null, err);
                }
                nextBegins();
            }, () -> {
                if (!answered[0]) {
                    for (Begin b : wave) {
                        deliver(b, null, new IllegalStateException("the journal answered nothing"));
                    }
                }
                nextBegins();
            });
        }

        private static void deliver(Begin b, CallJournal.Entry e, Throwable err) {
            try {
                b.done().accept(e, err);
            } catch (Throwable t) {
                org.slf4j.LoggerFactory.getLogger(JournalBatches.class).error("a journal callback failed", t);
            }
        }

        private static void deliver(Finish f, Throwable err) {
            try {
                f.done().accept(err);
            } catch (Throwable t) {
                org.slf4j.LoggerFactory.getLogger(JournalBatches.class).error("a journal callback failed", t);
            }
        }

        private void nextBegins() {
            List<Begin> next;
            synchronized (this) {
                next = queuedBegins;
                queuedBegins = null;
                if (next == null) {
                    beginning = false;
                    return;
                }
            }
            sendBegins(next);
        }

        void finish(Finish f) {
            synchronized (this) {
                if (finishing) {
                    if (queuedFinishes == null) {
                        queuedFinishes = new ArrayList<>(4);
                    }
                    queuedFinishes.add(f);
                    return;
                }
                finishing = true;
            }
            sendFinishes(List.of(f));
        }

        private void sendFinishes(List<Finish> batch) {
            Map<CallKey, List<OutboundEvent>> all = new LinkedHashMap<>(batch.size() * 2);
            for (Finish f : batch) {
                all.putIfAbsent(f.key(), f.events());
            }
            reactor.core.publisher.Mono<Void> m;
            try {
                m = journal.finish(all);
            } catch (Throwable e) {
                m = reactor.core.publisher.Mono.error(e);
            }
            m.subscribe(null, err -> {
                for (Finish f : batch) {
                    deliver(f, err);
                }
                nextFinishes();
            }, () -> {
                for (Finish f : batch) {
                    deliver(f, null);
                }
                nextFinishes();
            });
        }

        private void nextFinishes() {
            List<Finish> next;
            synchronized (this) {
                next = queuedFinishes;
                queuedFinishes = null;
                if (next == null) {
                    finishing = false;
                    return;
                }
            }
            sendFinishes(next);
        }
    }
}
