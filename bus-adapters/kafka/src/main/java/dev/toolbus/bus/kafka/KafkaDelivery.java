package dev.toolbus.bus.kafka;

/** The delivery contract of a {@link KafkaBus}'s results (see docs/buses.md). */
public enum KafkaDelivery {
    /**
     * A turn's events, its dead letters and its input's offset are written in one Kafka transaction:
     * a consumer of the results topic with {@code isolation.level=read_committed} sees each turn's
     * events once, even after an instance was killed mid-turn. Tools may still run twice after a crash
     * (give them {@code ToolContext.idempotencyKey()}). Events published while a turn runs
     * (progress, messages, approval and input requests) are committed within
     * {@link KafkaBusConfig#transactionInterval()} and may repeat after a crash (their ids are stable).
     */
    EXACTLY_ONCE,
    /** Events are written, then the offset is committed: after a crash a turn's events can repeat. */
    AT_LEAST_ONCE
}
