package dev.toolbus.config;

import dev.toolbus.spi.Checks;
import java.util.List;
import java.util.Objects;

/**
 * The {@code bus} section: which bus carries turns. Names default by type (Redis keys use {@code :}, Kafka topics
 * {@code .}; {@link #defaults(String)}). Immutable; built with {@link #builder(String)}:
 * <pre>{@code
 * BusConfig redis = BusConfig.builder("redis").url("redis://10.0.0.5:6379").build();   // default names
 * }</pre>
 */
public final class BusConfig {

    /** The bus types. */
    public static final List<String> TYPES = List.of("in-memory", "stdio", "redis", "kafka");

    private final String type;
    private final String url;
    private final String calls;
    private final String results;
    private final String deadLetter;
    private final String group;
    private final String consumer;
    private final IdempotencyConfig idempotency;
    private final RedisFailoverConfig redis;
    private final KafkaConfig kafka;

    private BusConfig(Builder b) {
        String type = b.type;
        String url = b.url;
        String calls = b.calls;
        String results = b.results;
        String deadLetter = b.deadLetter;
        String group = b.group;
        String consumer = b.consumer;
        IdempotencyConfig idempotency = b.idempotency;
        RedisFailoverConfig redis = Objects.requireNonNullElse(b.redis, RedisFailoverConfig.DEFAULTS);
        KafkaConfig kafka = Objects.requireNonNullElse(b.kafka, KafkaConfig.DEFAULTS);
        Objects.requireNonNull(type, "type");
        Checks.requireArgument(TYPES.contains(type), "bus.type must be one of " + TYPES + ", got '" + type + "'");
        url = Objects.requireNonNullElse(url, "");
        calls = Objects.requireNonNullElse(calls, "");
        results = Objects.requireNonNullElse(results, "");
        deadLetter = Objects.requireNonNullElse(deadLetter, "");
        group = Objects.requireNonNullElse(group, "");
        consumer = Objects.requireNonNullElse(consumer, "");
        idempotency = Objects.requireNonNullElse(idempotency, IdempotencyConfig.DEFAULTS);
        this.type = type;
        this.url = url;
        this.calls = calls;
        this.results = results;
        this.deadLetter = deadLetter;
        this.group = group;
        this.consumer = consumer;
        this.idempotency = idempotency;
        this.redis = redis;
        this.kafka = kafka;
    }

    /** A builder holding this section's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.type = type;
        b.url = url;
        b.calls = calls;
        b.results = results;
        b.deadLetter = deadLetter;
        b.group = group;
        b.consumer = consumer;
        b.idempotency = idempotency;
        b.redis = redis;
        b.kafka = kafka;
        return b;
    }

    /**
     * A builder holding the defaults of a bus type: its names and address, the default idempotency.
     *
     * @param type in-memory, stdio, redis or kafka
     */
    public static Builder builder(String type) {
        Builder b = new Builder();
        b.type = type;
        b.idempotency = IdempotencyConfig.DEFAULTS;
        switch (Objects.requireNonNull(type, "type")) {
            case "redis" -> {
                b.url = "redis://127.0.0.1:6379";
                b.calls = "toolbus:calls";
                b.results = "toolbus:results:{stream_id}";
                b.deadLetter = "toolbus:dead";
                b.group = "toolbus";
            }
            case "kafka" -> {
                b.url = "127.0.0.1:9092";
                b.calls = "toolbus.calls";
                b.results = "toolbus.results";
                b.deadLetter = "toolbus.dead";
                b.group = "toolbus";
            }
            default -> {
            }
        }
        return b;
    }

    /**
     * The defaults of a bus type.
     *
     * @throws IllegalArgumentException when {@code type} is not one of {@link #TYPES}
     */
    public static BusConfig defaults(String type) {
        return builder(type).build();
    }

    /** in-memory, stdio, redis or kafka. */
    public String type() {
        return type;
    }

    /** The broker address (empty for in-memory and stdio). */
    public String url() {
        return url;
    }

    /** The calls stream or topic. */
    public String calls() {
        return calls;
    }

    /** The results stream template ({@code {stream_id}} is replaced) or topic. */
    public String results() {
        return results;
    }

    /** Where undecodable input goes. */
    public String deadLetter() {
        return deadLetter;
    }

    /** The consumer group. */
    public String group() {
        return group;
    }

    /** This instance's consumer name (empty: unique per process). */
    public String consumer() {
        return consumer;
    }

    /** The executor's ledger of idempotent turns ({@code bus.idempotency}). */
    public IdempotencyConfig idempotency() {
        return idempotency;
    }

    /** How a Redis bus moves turns off a dead or stalled instance ({@code bus.redis}). */
    public RedisFailoverConfig redis() {
        return redis;
    }

    /** The Kafka bus's failover timing, client settings and turn state ({@code bus.kafka}). */
    public KafkaConfig kafka() {
        return kafka;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BusConfig e && type.equals(e.type) && url.equals(e.url) && calls.equals(e.calls)
                && results.equals(e.results) && deadLetter.equals(e.deadLetter) && group.equals(e.group)
                && consumer.equals(e.consumer) && idempotency.equals(e.idempotency) && redis.equals(e.redis)
                && kafka.equals(e.kafka);
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, url, calls, results, deadLetter, group, consumer, idempotency, redis, kafka);
    }

    @Override
    public String toString() {
        return "BusConfig[type=" + type + ", url=" + url + ", calls=" + calls + ", results=" + results
                + ", deadLetter=" + deadLetter + ", group=" + group + ", consumer=" + consumer + ", idempotency="
                + idempotency + ", redis=" + redis + ", kafka=" + kafka + "]";
    }

    /**
     * Builder of {@link BusConfig}, holding the defaults of its type.
     */
    public static final class Builder {
        private String type;
        private String url;
        private String calls;
        private String results;
        private String deadLetter;
        private String group;
        private String consumer;
        private IdempotencyConfig idempotency;
        private RedisFailoverConfig redis;
        private KafkaConfig kafka;

        private Builder() {
        }

        /** The broker address ({@code null}: empty). */
        public Builder url(String url) {
            this.url = url;
            return this;
        }

        /** The calls stream or topic ({@code null}: empty). */
        public Builder calls(String calls) {
            this.calls = calls;
            return this;
        }

        /** The results stream template ({@code {stream_id}} is replaced) or topic ({@code null}: empty). */
        public Builder results(String results) {
            this.results = results;
            return this;
        }

        /** Where undecodable input goes ({@code null}: empty). */
        public Builder deadLetter(String deadLetter) {
            this.deadLetter = deadLetter;
            return this;
        }

        /** The consumer group ({@code null}: empty). */
        public Builder group(String group) {
            this.group = group;
            return this;
        }

        /** This instance's consumer name ({@code null} or empty: unique per process). */
        public Builder consumer(String consumer) {
            this.consumer = consumer;
            return this;
        }

        /** The executor's ledger of idempotent turns ({@code null}: the defaults). */
        public Builder idempotency(IdempotencyConfig idempotency) {
            this.idempotency = idempotency;
            return this;
        }

        /** How a Redis bus moves turns off a dead or stalled instance ({@code null}: the defaults). */
        public Builder redis(RedisFailoverConfig redis) {
            this.redis = redis;
            return this;
        }

        /** The Kafka bus's failover timing, client settings and turn state ({@code null}: the defaults). */
        public Builder kafka(KafkaConfig kafka) {
            this.kafka = kafka;
            return this;
        }

        /**
         * The section.
         *
         * @throws NullPointerException when {@code type} is missing
         * @throws IllegalArgumentException when {@code type} is not one of {@link #TYPES}
         */
        public BusConfig build() {
            return new BusConfig(this);
        }
    }
}
