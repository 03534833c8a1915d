package dev.toolbus.assembly;

import dev.toolbus.assembly.stdio.StdioBus;
import dev.toolbus.bus.InMemoryBus;
import dev.toolbus.spi.ToolBus;
import dev.toolbus.config.Config;
import dev.toolbus.config.IdempotencyConfig;
import dev.toolbus.config.BusConfig;
import dev.toolbus.config.KafkaConfig;
import dev.toolbus.config.RedisFailoverConfig;
import dev.toolbus.protocol.EventCodec;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Duration;

/**
 * Opens the bus of an assembly. The names of the config's {@code bus} section apply when it names the
 * same kind of bus as the address; {@code bus.idempotency} also sets the brokers' own records of
 * finished turns. The broker adapters' classes are touched only for a bus of their kind.
 */
final class Buses {

    /** The in-memory bus's buffer of outbound events per stream. */
    static final int IN_MEMORY_BUFFER = 1024;

    private Buses() {
    }

    /**
     * The names a broker bus takes.
     *
     * @param bus the {@code bus} section (of the address's kind) or its defaults
     * @param idempotency {@code bus.idempotency}
     * @param group the consumer group
     * @param instance this instance's consumer name / client id
     * @param instanceId the executor's instance id (the Redis bus routes control answers by it)
     * @param maxEventBytes the largest input event
     * @param redis {@code bus.redis}: how soon a Redis bus moves a dead or stalled instance's turns
     */
    record Names(BusConfig bus, IdempotencyConfig idempotency, String group, String instance, String instanceId,
                 int maxEventBytes, RedisFailoverConfig redis) {
        Names {
            redis = redis != null ? redis : RedisFailoverConfig.DEFAULTS;
        }
    }

    static ToolBus open(BusAddress address, Names names, EventCodec codec) {
        return open(address, names, codec, null);
    }

    /** The bus of the address; a broker bus registers its gauges in {@code meters} when given. */
    static ToolBus open(BusAddress address, Names names, EventCodec codec, MeterRegistry meters) {
        return switch (address.scheme()) {
            case BusAddress.STDIO -> StdioBus.system(codec);
            case BusAddress.IN_MEMORY -> InMemoryBus.create(codec, IN_MEMORY_BUFFER);
            case BusAddress.REDIS -> Brokers.redis(address.address(), names, meters);
            case BusAddress.KAFKA -> Brokers.kafka(address.address(), names, meters);
            default -> throw new IllegalStateException("no bus for " + address.address());
        };
    }

    /** The config's bus section when it is of the address's kind (or there is no bus), else that kind's defaults. */
    static BusConfig section(BusAddress address, BusConfig fromConfig) {
        return fromConfig.type().equals(address.scheme()) || address.scheme().equals(BusAddress.NONE) ? fromConfig
                : BusConfig.defaults(address.scheme());
    }

    /** {@code --instance}, else {@code bus.consumer}, else {@code toolbus-<host>-<pid>}. */
    static String instanceName(String override, BusConfig b) {
        if (override != null && !override.isBlank()) {
            return override;
        }
        if (!b.consumer().isBlank()) {
            return b.consumer();
        }
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "localhost";
        }
        return "toolbus-" + host + "-" + ProcessHandle.current().pid();
    }

    /** The broker adapters: loaded only when a broker bus is asked for. */
    static final class Brokers {
        private Brokers() {
        }

        static ToolBus redis(String uri, Names n, MeterRegistry meters) {
            require("dev.toolbus.bus.redis.RedisStreamsBus", "toolbus-bus-redis");
            BusConfig b = n.bus();
            IdempotencyConfig idem = n.idempotency();
            RedisFailoverConfig f = n.redis();
            dev.toolbus.bus.redis.RedisStreamsBus.Builder bus = dev.toolbus.bus.redis.RedisStreamsBus.builder().uri(uri)
                    .config(dev.toolbus.bus.redis.RedisStreamsConfig.builder()
                    .callsStream(b.calls()).resultsKeyTemplate(b.results()).deadLetterStream(b.deadLetter())
                    .consumer(n.instance()).group(n.group()).maxEventBytes(n.maxEventBytes())
                    .instanceId(n.instanceId()).doneMarkerTtl(Duration.ofMillis(idem.windowMs()))
                    .maxRecordedBytes(recorded(idem))
                    .claimMinIdle(Duration.ofMillis(f.claimMinIdleMs()))
                    .claimInterval(Duration.ofMillis(f.claimIntervalMs())).claimBatch(f.claimBatch())
                    .build()); // control events reach the instance that asked
            if (meters != null) {
                bus.meterRegistry(meters);
            }
            return bus.build();
        }

        static ToolBus kafka(String uri, Names n, MeterRegistry meters) {
            require("dev.toolbus.bus.kafka.KafkaBus", "toolbus-bus-kafka");
            dev.toolbus.bus.kafka.KafkaBus.Builder bus = dev.toolbus.bus.kafka.KafkaBus.builder()
                    .config(kafkaConfig(uri, n)).uri(uri);
            if (meters != null) {
                bus.meterRegistry(meters);
            }
            return bus.build();
        }

        /**
         * The Kafka bus's settings of the config: names, idempotency, and {@code bus.kafka} (failover timing,
         * the sweep for hanging transactions, client settings). A client setting the bus refuses (offsets,
         * isolation, transactions) stops the start.
         */
        static dev.toolbus.bus.kafka.KafkaBusConfig kafkaConfig(String uri, Names n) {
            BusConfig b = n.bus();
            IdempotencyConfig idem = n.idempotency();
            KafkaConfig k = b.kafka();
            dev.toolbus.bus.kafka.KafkaBusConfig.Builder c = dev.toolbus.bus.kafka.KafkaBusConfig.builder()
                    .bootstrapServers(uri).callsTopic(b.calls()).resultsTopic(b.results())
                    .deadLetterTopic(b.deadLetter()).groupId(n.group()).clientId(n.instance())
                    .maxEventBytes(n.maxEventBytes()).turnLedgerWindow(Duration.ofMillis(idem.windowMs()))
                    .maxRecordedBytes(recorded(idem)).turnLedgerMaxBytes(idem.maxBytes()).turnState(k.turnState());
            if (!k.stateTopic().isEmpty()) {
                c.stateTopic(k.stateTopic());
            }
            if (k.sessionTimeoutMs() > 0) {
                c.sessionTimeout(Duration.ofMillis(k.sessionTimeoutMs()));
            }
            if (k.heartbeatIntervalMs() > 0) {
                c.heartbeatInterval(Duration.ofMillis(k.heartbeatIntervalMs()));
            }
            if (k.hangingTransactionSweepMs() != KafkaConfig.BUS_DEFAULT) {
                c.hangingTransactionSweep(Duration.ofMillis(k.hangingTransactionSweepMs())); // 0: off
            }
            try {
                k.consumer().forEach(c::consumerProperty);
                k.producer().forEach(c::producerProperty);
                k.admin().forEach(c::adminProperty);
                return c.build();
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("bus.kafka: " + e.getMessage(), e);
            }
        }

        /** The shared token buckets of {@code limits} on a Redis. */
        static SharedBuckets rateLimitStore(String uri) {
            require("dev.toolbus.bus.redis.RedisRateLimitStore", "toolbus-bus-redis");
            dev.toolbus.bus.redis.RedisRateLimitStore store = dev.toolbus.bus.redis.RedisRateLimitStore.create(uri,
                    dev.toolbus.bus.redis.RedisRateLimitStore.DEFAULT_PREFIX);
            return new SharedBuckets(store, store::close);
        }

        private static int recorded(IdempotencyConfig idem) {
            return (int) Math.min(Integer.MAX_VALUE, idem.maxRecordedBytes());
        }

        private static void require(String cls, String artifact) {
            try {
                Class.forName(cls, false, Buses.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("this bus needs " + artifact + " on the classpath: add the dependency "
                        + "dev.toolbus:" + artifact, e);
            }
        }
    }

    /**
     * A shared bucket store and how to close it.
     *
     * @param store the store
     * @param close closes its connection
     */
    record SharedBuckets(dev.toolbus.spi.RateLimitStore store, Runnable close) {
    }
}
