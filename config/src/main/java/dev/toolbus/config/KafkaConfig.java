package dev.toolbus.config;

import dev.toolbus.spi.Checks;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The Kafka bus's failover timing, kafka-clients settings, turn state and sweep for hanging transactions
 * ({@code bus.kafka}; other buses ignore it). How soon a dead instance's partitions, with their turns, move to
 * another is the consumer's session timeout. Immutable; built with {@link #builder()}, which starts from the
 * defaults (Kafka's timing, no client settings, the turn state in its default topic, the bus's sweep).
 */
public final class KafkaConfig {

    /** The longest session timeout or heartbeat: 30 min (Kafka's broker default allows at most that). */
    static final long MAX_TIMING_MS = 30 * 60_000L;
    /** The shortest session timeout set. */
    static final long MIN_SESSION_MS = 1_000;
    /** The shortest heartbeat interval set. */
    static final long MIN_HEARTBEAT_MS = 100;
    /** The shortest sweep for hanging transactions set. */
    static final long MIN_SWEEP_MS = 1_000;
    /** {@link #hangingTransactionSweepMs()} when not set: the bus's default. */
    public static final long BUS_DEFAULT = -1;
    /** At most this many client settings per map. */
    static final int MAX_PROPERTIES = 256;

    /** Kafka's timing, no client settings, the turn state in its default topic. */
    public static final KafkaConfig DEFAULTS = builder().build();

    private final long sessionTimeoutMs;
    private final long heartbeatIntervalMs;
    private final long hangingTransactionSweepMs;
    private final Map<String, String> consumer;
    private final Map<String, String> producer;
    private final Map<String, String> admin;
    private final boolean turnState;
    private final String stateTopic;

    private KafkaConfig(Builder b) {
        timing(b.sessionTimeoutMs, MIN_SESSION_MS, "bus.kafka.sessionTimeoutMs");
        timing(b.heartbeatIntervalMs, MIN_HEARTBEAT_MS, "bus.kafka.heartbeatIntervalMs");
        Checks.requireArgument(b.sessionTimeoutMs == 0 || b.heartbeatIntervalMs < b.sessionTimeoutMs,
                "bus.kafka.heartbeatIntervalMs (" + b.heartbeatIntervalMs + ") must be below sessionTimeoutMs ("
                        + b.sessionTimeoutMs + ")");
        if (b.hangingTransactionSweepMs != BUS_DEFAULT) {
            timing(b.hangingTransactionSweepMs, MIN_SWEEP_MS, "bus.kafka.hangingTransactionSweepMs");
        }
        this.sessionTimeoutMs = b.sessionTimeoutMs;
        this.heartbeatIntervalMs = b.heartbeatIntervalMs;
        this.hangingTransactionSweepMs = b.hangingTransactionSweepMs;
        this.consumer = settings(b.consumer, "bus.kafka.consumer");
        this.producer = settings(b.producer, "bus.kafka.producer");
        this.admin = settings(b.admin, "bus.kafka.admin");
        this.turnState = b.turnState;
        this.stateTopic = Objects.requireNonNullElse(b.stateTopic, "").strip();
    }

    private static void timing(long v, long min, String name) {
        if (v != 0) {
            Checks.requireRange(v, min, MAX_TIMING_MS, name);
        }
    }

    private static Map<String, String> settings(Map<String, String> m, String name) {
        Objects.requireNonNull(m, name);
        Checks.requireArgument(m.size() <= MAX_PROPERTIES, name + " has " + m.size() + " settings, more than "
                + MAX_PROPERTIES);
        Map<String, String> out = new LinkedHashMap<>();
        m.forEach((k, v) -> {
            Checks.requireArgument(k != null && !k.isBlank() && v != null, name + " has an empty setting name or value");
            out.put(k, v);
        });
        return Collections.unmodifiableMap(out);
    }

    /** Starts a builder from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this section's values. */
    public Builder toBuilder() {
        return new Builder().sessionTimeoutMs(sessionTimeoutMs).heartbeatIntervalMs(heartbeatIntervalMs)
                .hangingTransactionSweepMs(hangingTransactionSweepMs).consumer(consumer).producer(producer).admin(admin)
                .turnState(turnState).stateTopic(stateTopic);
    }

    /** {@code session.timeout.ms} of the consumer (0: Kafka's default, 45 s). */
    public long sessionTimeoutMs() {
        return sessionTimeoutMs;
    }

    /** {@code heartbeat.interval.ms} (0: a third of the session timeout, at most 3 s). */
    public long heartbeatIntervalMs() {
        return heartbeatIntervalMs;
    }

    /**
     * How often an exactly-once bus looks for hanging transactions and aborts them: 0 never,
     * {@link #BUS_DEFAULT} (-1, when not set) the bus's default (twice the producer's
     * {@code transaction.timeout.ms}, at least 10 s).
     */
    public long hangingTransactionSweepMs() {
        return hangingTransactionSweepMs;
    }

    /** kafka-clients consumer settings, by their Kafka names. */
    public Map<String, String> consumer() {
        return consumer;
    }

    /** kafka-clients producer settings. */
    public Map<String, String> producer() {
        return producer;
    }

    /** kafka-clients admin client settings (topic creation). */
    public Map<String, String> admin() {
        return admin;
    }

    /**
     * Whether the turn state (call journal, approvals, grants, cut results) is kept in the state topic (false: in
     * the executor's memory).
     */
    public boolean turnState() {
        return turnState;
    }

    /** The state topic (empty: the calls topic's name with {@code .state} for {@code .calls}). */
    public String stateTopic() {
        return stateTopic;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KafkaConfig k && sessionTimeoutMs == k.sessionTimeoutMs
                && heartbeatIntervalMs == k.heartbeatIntervalMs
                && hangingTransactionSweepMs == k.hangingTransactionSweepMs && consumer.equals(k.consumer)
                && producer.equals(k.producer) && admin.equals(k.admin) && turnState == k.turnState
                && stateTopic.equals(k.stateTopic);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sessionTimeoutMs, heartbeatIntervalMs, hangingTransactionSweepMs, consumer, producer, admin,
                turnState, stateTopic);
    }

    /** The settings' names only: values may be secrets. */
    @Override
    public String toString() {
        return "KafkaConfig[sessionTimeoutMs=" + sessionTimeoutMs + ", heartbeatIntervalMs=" + heartbeatIntervalMs
                + ", hangingTransactionSweepMs=" + hangingTransactionSweepMs + ", consumer=" + consumer.keySet()
                + ", producer=" + producer.keySet() + ", admin=" + admin.keySet()
                + ", turnState=" + turnState + ", stateTopic=" + stateTopic + "]";
    }

    /** Builder of {@link KafkaConfig}, starting from the defaults. */
    public static final class Builder {
        private long sessionTimeoutMs;
        private long heartbeatIntervalMs;
        private long hangingTransactionSweepMs = BUS_DEFAULT;
        private Map<String, String> consumer = Map.of();
        private Map<String, String> producer = Map.of();
        private Map<String, String> admin = Map.of();
        private boolean turnState = true;
        private String stateTopic = "";

        private Builder() {
        }

        /** {@code session.timeout.ms}: 0 (Kafka's default) or 1 s to 30 min. */
        public Builder sessionTimeoutMs(long sessionTimeoutMs) {
            this.sessionTimeoutMs = sessionTimeoutMs;
            return this;
        }

        /** {@code heartbeat.interval.ms}: 0 (a third of the session timeout) or 100 ms to 30 min, below the session timeout. */
        public Builder heartbeatIntervalMs(long heartbeatIntervalMs) {
            this.heartbeatIntervalMs = heartbeatIntervalMs;
            return this;
        }

        /**
         * How often an exactly-once bus looks for hanging transactions: {@link KafkaConfig#BUS_DEFAULT} (the bus's
         * default, 20 s unless {@code transaction.timeout.ms} is set), 0 (off) or 1 s to 30 min.
         */
        public Builder hangingTransactionSweepMs(long hangingTransactionSweepMs) {
            this.hangingTransactionSweepMs = hangingTransactionSweepMs;
            return this;
        }

        /** kafka-clients consumer settings by their Kafka names (at most 256). */
        public Builder consumer(Map<String, String> consumer) {
            this.consumer = consumer;
            return this;
        }

        /** kafka-clients producer settings (at most 256). */
        public Builder producer(Map<String, String> producer) {
            this.producer = producer;
            return this;
        }

        /** kafka-clients admin client settings (at most 256). */
        public Builder admin(Map<String, String> admin) {
            this.admin = admin;
            return this;
        }

        /** Whether the turn state is kept in the state topic (default true). */
        public Builder turnState(boolean turnState) {
            this.turnState = turnState;
            return this;
        }

        /** The state topic ({@code null} or empty: derived from the calls topic). */
        public Builder stateTopic(String stateTopic) {
            this.stateTopic = stateTopic;
            return this;
        }

        /**
         * The section.
         *
         * @throws IllegalArgumentException when a value is out of its range (the message names it)
         */
        public KafkaConfig build() {
            return new KafkaConfig(this);
        }
    }
}
