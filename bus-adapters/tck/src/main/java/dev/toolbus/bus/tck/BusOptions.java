package dev.toolbus.bus.tck;

import java.time.Duration;
import java.util.Objects;

/**
 * What a suite asks of one bus instance, in terms every broker understands; a
 * {@link BrokerFixture} maps it to its adapter's settings. Unset values keep the fixture's test
 * defaults.
 */
public final class BusOptions {

    private final String name;
    private final String instanceId;
    private final int maxEventBytes;
    private final int maxDeliveries;
    private final int maxRecordedBytes;
    private final Duration takeOverAfter;
    private final boolean giveUpAtOnce;
    private final FaultProxy proxy;

    private BusOptions(Builder b) {
        this.name = b.name;
        this.instanceId = b.instanceId;
        this.maxEventBytes = b.maxEventBytes;
        this.maxDeliveries = b.maxDeliveries;
        this.maxRecordedBytes = b.maxRecordedBytes;
        this.takeOverAfter = b.takeOverAfter;
        this.giveUpAtOnce = b.giveUpAtOnce;
        this.proxy = b.proxy;
    }

    /** Options for the instance of this name (consumer name, client id). */
    public static Builder named(String name) {
        return new Builder(name);
    }

    /** The instance's name, unique within a test. */
    public String name() {
        return name;
    }

    /** The executor's instance id the bus shares control events under, or null. */
    public String instanceId() {
        return instanceId;
    }

    /** The largest input accepted, or 0 for the default. */
    public int maxEventBytes() {
        return maxEventBytes;
    }

    /** Deliveries after which an input is dead-lettered, or 0 for the default. */
    public int maxDeliveries() {
        return maxDeliveries;
    }

    /** The largest events of a finished turn kept for a replay, or -1 for the default. */
    public int maxRecordedBytes() {
        return maxRecordedBytes;
    }

    /**
     * How long an instance that stopped answering keeps its inputs before another instance takes them
     * (Redis {@code claimMinIdle}; Kafka's session timeout), or null for the default.
     */
    public Duration takeOverAfter() {
        return takeOverAfter;
    }

    /** Whether closing gives up on unsettled inputs at once (no shutdown or revocation wait). */
    public boolean giveUpAtOnce() {
        return giveUpAtOnce;
    }

    /** The proxy every connection of the bus goes through, or null for a direct connection. */
    public FaultProxy proxy() {
        return proxy;
    }

    /** Builder of {@link BusOptions}. */
    public static final class Builder {
        private final String name;
        private String instanceId;
        private int maxEventBytes;
        private int maxDeliveries;
        private int maxRecordedBytes = -1;
        private Duration takeOverAfter;
        private boolean giveUpAtOnce;
        private FaultProxy proxy;

        private Builder(String name) {
            this.name = Objects.requireNonNull(name, "name");
        }

        public Builder instanceId(String id) {
            this.instanceId = id;
            return this;
        }

        public Builder maxEventBytes(int n) {
            this.maxEventBytes = n;
            return this;
        }

        public Builder maxDeliveries(int n) {
            this.maxDeliveries = n;
            return this;
        }

        public Builder maxRecordedBytes(int n) {
            this.maxRecordedBytes = n;
            return this;
        }

        public Builder takeOverAfter(Duration d) {
            this.takeOverAfter = d;
            return this;
        }

        public Builder giveUpAtOnce() {
            this.giveUpAtOnce = true;
            return this;
        }

        public Builder through(FaultProxy proxy) {
            this.proxy = proxy;
            return this;
        }

        public BusOptions build() {
            return new BusOptions(this);
        }
    }
}
