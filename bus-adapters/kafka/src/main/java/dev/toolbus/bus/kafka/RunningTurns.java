package dev.toolbus.bus.kafka;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The turns (and answers) this instance runs now, by {@code stream_id} and turn id (or request id), and
 * those it was still running when their partition moved ({@link MovedTurns}). Exactly once, a turn's
 * staged records go with its message; in both modes the final events of a moved turn's run are refused,
 * so a partition's old owner never publishes a turn its new owner runs again, nor (when the partition came
 * back to it) alongside the run of the record delivered again. Thread-safe.
 */
final class RunningTurns {

    private final ConcurrentHashMap<String, KafkaMessage> turns = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, KafkaMessage> answers = new ConcurrentHashMap<>();
    private final MovedTurns moved = new MovedTurns();

    /** The key of a turn (also of the ledger), or of an answer: a stream id and an id, NUL between. */
    static String key(String streamId, String id) {
        return LedgerTopic.turnKey(streamId, id);
    }

    void handedOver(KafkaMessage m) {
        if (m.peek.isTurn()) {
            turns.putIfAbsent(key(m.peek.streamId(), m.peek.turnId()), m);
        } else if (m.peek.isAnswer() && m.peek.streamId() != null && m.peek.requestId() != null) {
            answers.putIfAbsent(key(m.peek.streamId(), m.peek.requestId()), m);
        }
    }

    /** The message was settled here (acknowledged, dead-lettered). */
    void settled(KafkaMessage m) {
        if (m.peek.isTurn()) {
            turns.remove(key(m.peek.streamId(), m.peek.turnId()), m);
        } else if (m.peek.isAnswer() && m.peek.streamId() != null && m.peek.requestId() != null) {
            answers.remove(key(m.peek.streamId(), m.peek.requestId()), m);
        }
    }

    KafkaMessage turn(String turnKey) {
        return turns.get(turnKey);
    }

    KafkaMessage answer(String streamId, String requestId) {
        return answers.get(key(streamId, requestId));
    }

    /**
     * What a turn's final events go with: its running message, or null when none runs here (they are
     * written on their own). Throws {@link IllegalStateException} when the turn moved away while it ran
     * here, before it published (the events are refused, and the turn is forgotten as moved). The publish that finds it moved is the one
     * of the run that was here when the partition moved, also where the partition came back and the record,
     * delivered again, runs here once more: one stream's turns run one after another, so that run
     * publishes first. The message found is marked as having published, so a move from now on does not
     * count the turn as moved (the record's next delivery runs and publishes it).
     */
    synchronized KafkaMessage forFinalEvents(String streamId, String turnId) {
        String turnKey = key(streamId, turnId);
        if (moved.take(turnKey)) {
            throw new IllegalStateException("the partition of turn " + turnId + " of " + streamId + " moved while "
                    + "the turn ran here; its owner now runs the turn again, and this run's events are not written");
        }
        KafkaMessage m = turns.get(turnKey);
        if (m != null) {
            m.published = true;
        }
        return m;
    }

    /**
     * The partitions of these messages moved: their turns that had not published yet are remembered as
     * moved, their answers forgotten.
     */
    synchronized void moved(Predicate<KafkaMessage> gone) {
        turns.entrySet().removeIf(e -> {
            if (gone.test(e.getValue())) {
                if (!e.getValue().published) {
                    moved.add(e.getKey());
                }
                return true;
            }
            return false;
        });
        answers.values().removeIf(gone);
    }
}
