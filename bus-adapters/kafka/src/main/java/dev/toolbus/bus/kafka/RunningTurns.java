package dev.toolbus.bus.kafka;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The turns (and answers) this instance runs now, by {@code stream_id} and turn id (or request id), and
 * those it was still running when their partition moved ({@link MovedTurns}). Exactly once, a turn's
 * staged records go with its message; in both modes the final events of a moved turn are refused, so a
 * partition's old owner never publishes a turn its new owner runs again. Thread-safe.
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

    /** Whether the turn moved away; forgets it (its one final publish is the one asked about). */
    boolean takeMoved(String turnKey) {
        return moved.take(turnKey);
    }

    /** The partitions of these messages moved: their turns are remembered as moved, their answers forgotten. */
    void moved(Predicate<KafkaMessage> gone) {
        turns.entrySet().removeIf(e -> {
            if (gone.test(e.getValue())) {
                moved.add(e.getKey());
                return true;
            }
            return false;
        });
        answers.values().removeIf(gone);
    }
}
