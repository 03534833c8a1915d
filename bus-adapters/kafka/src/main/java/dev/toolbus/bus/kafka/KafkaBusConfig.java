package dev.toolbus.bus.kafka;

import static dev.toolbus.spi.Checks.requireArgument;
import static dev.toolbus.spi.Checks.requireNotNegative;
import static dev.toolbus.spi.Checks.requirePositive;
import static dev.toolbus.spi.Checks.requireText;

import dev.toolbus.protocol.EventCodec;
import dev.toolbus.spi.TurnStateSettings;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * Immutable settings of a {@link KafkaBus}. Build them with {@link #builder()}; every setter checks its
 * value at once and throws {@link IllegalArgumentException} naming the setting.
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>bootstrapServers</td><td>{@value #DEFAULT_BOOTSTRAP_SERVERS}</td><td>{@code host:port[,host:port]}</td></tr>
 *   <tr><td>callsTopic</td><td>{@value #DEFAULT_CALLS_TOPIC}</td><td>turns in; key {@code stream_id}, value the event JSON</td></tr>
 *   <tr><td>resultsTopic</td><td>{@value #DEFAULT_RESULTS_TOPIC}</td><td>events out, keyed by {@code stream_id}</td></tr>
 *   <tr><td>deadLetterTopic</td><td>{@value #DEFAULT_DEAD_LETTER_TOPIC}</td><td>poison events; the reason and origin in headers</td></tr>
 *   <tr><td>groupId</td><td>{@value #DEFAULT_GROUP_ID}</td><td>consumer group of the executor instances</td></tr>
 *   <tr><td>clientId</td><td>host-pid-random</td><td>this instance's client id</td></tr>
 *   <tr><td>createTopics</td><td>true</td><td>create the three topics if missing (AdminClient)</td></tr>
 *   <tr><td>topicPartitions</td><td>{@value #DEFAULT_TOPIC_PARTITIONS}</td><td>partitions of topics this bus creates</td></tr>
 *   <tr><td>replicationFactor</td><td>0 (broker default)</td><td>replication of topics this bus creates</td></tr>
 *   <tr><td>maxPollRecords</td><td>{@value #DEFAULT_MAX_POLL_RECORDS}</td><td>{@code max.poll.records}</td></tr>
 *   <tr><td>maxBufferedRecords</td><td>{@value #DEFAULT_MAX_BUFFERED_RECORDS}</td><td>records polled but not yet requested by the executor above which partitions are paused</td></tr>
 *   <tr><td>pollTimeout</td><td>100 ms</td><td>one {@code poll}; also how often completions are looked at</td></tr>
 *   <tr><td>commitInterval</td><td>500 ms</td><td>how often completed offsets are committed (also on revocation and close)</td></tr>
 *   <tr><td>revokeTimeout</td><td>10 s</td><td>how long a revocation waits for running turns of the revoked partitions</td></tr>
 *   <tr><td>maxEventBytes</td><td>1 MiB</td><td>larger records are dead-lettered by the bus without being decoded</td></tr>
 *   <tr><td>shutdownTimeout</td><td>30 s</td><td>how long {@code closeGracefully} waits for delivered turns to complete</td></tr>
 *   <tr><td>delivery</td><td>EXACTLY_ONCE</td><td>{@link KafkaDelivery}: results and offsets in one transaction, or results then a commit</td></tr>
 *   <tr><td>transactionInterval</td><td>10 ms</td><td>how often staged results and offsets are committed in one transaction (exactly-once)</td></tr>
 *   <tr><td>hangingTransactionSweep</td><td>twice the transaction timeout, at least 10 s</td><td>how often an exactly-once bus looks for hanging transactions on its output topics and aborts them; {@link Duration#ZERO} turns it off</td></tr>
 *   <tr><td>maxDeliveries</td><td>{@value #DEFAULT_MAX_DELIVERIES}</td><td>a record taken by more owners without completing is dead-lettered, with an {@code error} event on its stream</td></tr>
 *   <tr><td>turnLedgerTopic</td><td>{@value #DEFAULT_TURN_LEDGER_TOPIC} (the calls topic's name with {@code .turns} for {@code .calls})</td><td>finished turns (exactly once): a turn sent again within the window is answered with its recorded events, marked {@code replayed}</td></tr>
 *   <tr><td>turnLedgerWindow</td><td>1 h</td><td>how long a finished turn is remembered; {@link Duration#ZERO} turns the ledger off</td></tr>
 *   <tr><td>maxRecordedBytes</td><td>64 KiB</td><td>larger events of a turn are not kept (a repeat is settled without a replay)</td></tr>
 *   <tr><td>turnLedgerMaxBytes</td><td>64 MiB</td><td>finished turns kept in memory per instance, oldest evicted first</td></tr>
 *   <tr><td>turnState</td><td>true</td><td>keep the turn state (call journal, approvals and questions, grants, cut results) in the state topic; false: in the executor's memory (a tool that is not retry-safe can then run twice after a crash)</td></tr>
 *   <tr><td>stateTopic</td><td>{@value #DEFAULT_STATE_TOPIC} (the calls topic's name with {@code .state} for {@code .calls})</td><td>the compacted topic of the turn state, as many partitions as the calls topic</td></tr>
 *   <tr><td>turnStateSettings</td><td>{@link TurnStateSettings#DEFAULTS}</td><td>bounds and lifetimes of the turn state's records</td></tr>
 *   <tr><td>stateRestoreTimeout</td><td>60 s</td><td>how long an instance reads a partition's state on assignment before it gives up (its calls that are not retry-safe then fail until the next assignment)</td></tr>
 *   <tr><td>principal</td><td>{@value #DEFAULT_PRINCIPAL}</td><td>the identity of every turn and answer read from this bus ({@code Principal.bus})</td></tr>
 *   <tr><td>sessionTimeout</td><td>Kafka's (45 s)</td><td>how long a silent instance keeps its partitions before another takes them over</td></tr>
 *   <tr><td>heartbeatInterval</td><td>a third of the session timeout, at most Kafka's 3 s</td><td>how often the consumer tells the group it is alive</td></tr>
 *   <tr><td>consumerProperties / producerProperties / adminProperties</td><td>none</td><td>kafka-clients settings that override the bus's</td></tr>
 * </table>
 */
public final class KafkaBusConfig {

    public static final String DEFAULT_BOOTSTRAP_SERVERS = "127.0.0.1:9092";
    public static final String DEFAULT_CALLS_TOPIC = "toolbus.calls";
    public static final String DEFAULT_RESULTS_TOPIC = "toolbus.results";
    public static final String DEFAULT_DEAD_LETTER_TOPIC = "toolbus.dead";
    public static final String DEFAULT_GROUP_ID = "toolbus";
    public static final int DEFAULT_TOPIC_PARTITIONS = 6;
    public static final int DEFAULT_MAX_POLL_RECORDS = 500;
    public static final int DEFAULT_MAX_BUFFERED_RECORDS = 1_000;
    public static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofMillis(100);
    public static final Duration DEFAULT_COMMIT_INTERVAL = Duration.ofMillis(500);
    public static final Duration DEFAULT_REVOKE_TIMEOUT = Duration.ofSeconds(10);
    public static final int DEFAULT_MAX_EVENT_BYTES = EventCodec.DEFAULT_MAX_EVENT_BYTES;
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_TRANSACTION_INTERVAL = Duration.ofMillis(10);
    public static final int DEFAULT_MAX_DELIVERIES = 5;
    public static final String DEFAULT_TURN_LEDGER_TOPIC = "toolbus.turns";
    public static final Duration DEFAULT_TURN_LEDGER_WINDOW = Duration.ofHours(1);
    public static final int DEFAULT_MAX_RECORDED_BYTES = 64 * 1024;
    public static final long DEFAULT_TURN_LEDGER_MAX_BYTES = 64L << 20;
    public static final String DEFAULT_STATE_TOPIC = "toolbus.state";
    public static final Duration DEFAULT_STATE_RESTORE_TIMEOUT = Duration.ofSeconds(60);
    public static final String DEFAULT_PRINCIPAL = "kafka";

    /** Consumer settings the bus owns, with what to set instead. */
    public static final Map<String, String> RESERVED_CONSUMER_PROPERTIES = Map.of(
            "group.id", "set groupId",
            "client.id", "set clientId",
            "enable.auto.commit", "offsets are committed when a turn's events are durable",
            "isolation.level", "the bus reads committed records only",
            "partition.assignment.strategy", "turn state and fencing follow the cooperative sticky assignment",
            "key.deserializer", "records are read as the bus writes them",
            "value.deserializer", "records are read as the bus writes them");

    /** Producer settings the bus owns, with what to set instead. */
    public static final Map<String, String> RESERVED_PRODUCER_PROPERTIES = Map.of(
            "transactional.id", "the bus names its transactions per instance",
            "enable.idempotence", "a retried send must not write twice",
            "acks", "a turn's events and a started call are durable on every in-sync replica",
            "key.serializer", "records are written as the bus reads them",
            "value.serializer", "records are written as the bus reads them");

    private final String bootstrapServers;
    private final String callsTopic;
    private final String resultsTopic;
    private final String deadLetterTopic;
    private final String groupId;
    private final String clientId;
    private final boolean createTopics;
    private final int topicPartitions;
    private final short replicationFactor;
    private final int maxPollRecords;
    private final int maxBufferedRecords;
    private final Duration pollTimeout;
    private final Duration commitInterval;
    private final Duration revokeTimeout;
    private final int maxEventBytes;
    private final Duration shutdownTimeout;
    private final KafkaDelivery delivery;
    private final Duration transactionInterval;
    /** Null: derived from the transaction timeout. */
    private final Duration hangingTransactionSweep;
    private final int maxDeliveries;
    private final String turnLedgerTopic;
    private final Duration turnLedgerWindow;
    private final int maxRecordedBytes;
    private final long turnLedgerMaxBytes;
    private final boolean turnState;
    private final String stateTopic;
    private final TurnStateSettings turnStateSettings;
    private final Duration stateRestoreTimeout;
    private final String principal;
    private final Duration sessionTimeout;
    private final Duration heartbeatInterval;
    private final Map<String, String> consumerProperties;
    private final Map<String, String> producerProperties;
    private final Map<String, String> adminProperties;

    private KafkaBusConfig(Builder b) {
        this.bootstrapServers = b.bootstrapServers;
        this.callsTopic = b.callsTopic;
        this.resultsTopic = b.resultsTopic;
        this.deadLetterTopic = b.deadLetterTopic;
        this.groupId = b.groupId;
        this.clientId = b.clientId != null ? b.clientId : uniqueClientId();
        this.createTopics = b.createTopics;
        this.topicPartitions = b.topicPartitions;
        this.replicationFactor = b.replicationFactor;
        this.maxPollRecords = b.maxPollRecords;
        this.maxBufferedRecords = b.maxBufferedRecords;
        this.pollTimeout = b.pollTimeout;
        this.commitInterval = b.commitInterval;
        this.revokeTimeout = b.revokeTimeout;
        this.maxEventBytes = b.maxEventBytes;
        this.shutdownTimeout = b.shutdownTimeout;
        this.delivery = b.delivery;
        this.transactionInterval = b.transactionInterval;
        this.hangingTransactionSweep = b.hangingTransactionSweep;
        this.maxDeliveries = b.maxDeliveries;
        this.turnLedgerTopic = b.turnLedgerTopic != null ? b.turnLedgerTopic : ledgerTopicFor(b.callsTopic);
        this.turnLedgerWindow = b.turnLedgerWindow;
        this.maxRecordedBytes = b.maxRecordedBytes;
        this.turnLedgerMaxBytes = b.turnLedgerMaxBytes;
        this.turnState = b.turnState;
        this.stateTopic = b.stateTopic != null ? b.stateTopic : stateTopicFor(b.callsTopic);
        this.turnStateSettings = b.turnStateSettings;
        this.stateRestoreTimeout = b.stateRestoreTimeout;
        this.principal = b.principal;
        this.sessionTimeout = b.sessionTimeout;
        this.heartbeatInterval = b.heartbeatInterval;
        this.consumerProperties = Map.copyOf(b.consumerProperties);
        this.producerProperties = Map.copyOf(b.producerProperties);
        this.adminProperties = Map.copyOf(b.adminProperties);
    }

    /** The brokers. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** Topic of incoming turns. */
    public String callsTopic() {
        return callsTopic;
    }

    /** Topic of outgoing events. */
    public String resultsTopic() {
        return resultsTopic;
    }

    /** Topic of poison events. */
    public String deadLetterTopic() {
        return deadLetterTopic;
    }

    /** The consumer group. */
    public String groupId() {
        return groupId;
    }

    /** This instance's client id. */
    public String clientId() {
        return clientId;
    }

    /** Whether missing topics are created. */
    public boolean createTopics() {
        return createTopics;
    }

    /** Partitions of created topics. */
    public int topicPartitions() {
        return topicPartitions;
    }

    /** Replication of created topics, 0 for the broker's default. */
    public short replicationFactor() {
        return replicationFactor;
    }

    /** Records per poll. */
    public int maxPollRecords() {
        return maxPollRecords;
    }

    /** Pause threshold of the poll buffer. */
    public int maxBufferedRecords() {
        return maxBufferedRecords;
    }

    /** One poll's wait. */
    public Duration pollTimeout() {
        return pollTimeout;
    }

    /** Period of offset commits. */
    public Duration commitInterval() {
        return commitInterval;
    }

    /** Wait for running turns of revoked partitions. */
    public Duration revokeTimeout() {
        return revokeTimeout;
    }

    /** Largest accepted event. */
    public int maxEventBytes() {
        return maxEventBytes;
    }

    /** Bound of a graceful shutdown's wait. */
    public Duration shutdownTimeout() {
        return shutdownTimeout;
    }

    /** The delivery contract of results. */
    public KafkaDelivery delivery() {
        return delivery;
    }

    /** Period of transactions in exactly-once mode. */
    public Duration transactionInterval() {
        return transactionInterval;
    }

    /**
     * How often an exactly-once bus looks for hanging transactions on its output topics (and aborts
     * them); zero: never. Default: twice the producer's {@code transaction.timeout.ms}, at least 10 s.
     */
    public Duration hangingTransactionSweep() {
        if (hangingTransactionSweep != null) {
            return hangingTransactionSweep;
        }
        return Duration.ofMillis(Math.max(10_000, 2 * Producers.transactionTimeoutMs(this)));
    }

    /** Deliveries after which an input is dead-lettered. */
    public int maxDeliveries() {
        return maxDeliveries;
    }

    /** Topic of finished turns. */
    public String turnLedgerTopic() {
        return turnLedgerTopic;
    }

    /** How long finished turns are remembered, zero for off. */
    public Duration turnLedgerWindow() {
        return turnLedgerWindow;
    }

    /** Largest events of a turn kept for a replay. */
    public int maxRecordedBytes() {
        return maxRecordedBytes;
    }

    /** Finished turns kept in memory, in bytes. */
    public long turnLedgerMaxBytes() {
        return turnLedgerMaxBytes;
    }

    /** Whether the turn state is kept in the state topic. */
    public boolean turnState() {
        return turnState;
    }

    /** The compacted topic of the turn state. */
    public String stateTopic() {
        return stateTopic;
    }

    /** Bounds and lifetimes of the turn state's records. */
    public TurnStateSettings turnStateSettings() {
        return turnStateSettings;
    }

    /** How long a partition's state may take to read on assignment. */
    public Duration stateRestoreTimeout() {
        return stateRestoreTimeout;
    }

    /** The name of the bus's principal ({@code Principal.bus(name)}). */
    public String principal() {
        return principal;
    }

    /** The consumer's session timeout, or null for Kafka's default (45 s). */
    public Duration sessionTimeout() {
        return sessionTimeout;
    }

    /**
     * The consumer's heartbeat interval: as set, else a third of the session timeout (at most 3 s) when
     * that is set, else null (Kafka's default, 3 s).
     */
    public Duration heartbeatInterval() {
        if (heartbeatInterval != null || sessionTimeout == null) {
            return heartbeatInterval;
        }
        long third = Math.max(100, sessionTimeout.toMillis() / 3);
        return Duration.ofMillis(Math.min(3_000, third));
    }

    /** Consumer overrides. */
    public Map<String, String> consumerProperties() {
        return consumerProperties;
    }

    /** Producer overrides. */
    public Map<String, String> producerProperties() {
        return producerProperties;
    }

    /** Admin client overrides (topic creation, the sweep for hanging transactions). */
    public Map<String, String> adminProperties() {
        return adminProperties;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof KafkaBusConfig c)) {
            return false;
        }
        return Objects.equals(bootstrapServers, c.bootstrapServers)
                && Objects.equals(callsTopic, c.callsTopic)
                && Objects.equals(resultsTopic, c.resultsTopic)
                && Objects.equals(deadLetterTopic, c.deadLetterTopic)
                && Objects.equals(groupId, c.groupId)
                && Objects.equals(clientId, c.clientId)
                && createTopics == c.createTopics
                && topicPartitions == c.topicPartitions
                && replicationFactor == c.replicationFactor
                && maxPollRecords == c.maxPollRecords
                && maxBufferedRecords == c.maxBufferedRecords
                && Objects.equals(pollTimeout, c.pollTimeout)
                && Objects.equals(commitInterval, c.commitInterval)
                && Objects.equals(revokeTimeout, c.revokeTimeout)
                && maxEventBytes == c.maxEventBytes
                && Objects.equals(shutdownTimeout, c.shutdownTimeout)
                && Objects.equals(delivery, c.delivery)
                && Objects.equals(transactionInterval, c.transactionInterval)
                && Objects.equals(hangingTransactionSweep, c.hangingTransactionSweep)
                && maxDeliveries == c.maxDeliveries
                && Objects.equals(turnLedgerTopic, c.turnLedgerTopic)
                && Objects.equals(turnLedgerWindow, c.turnLedgerWindow)
                && maxRecordedBytes == c.maxRecordedBytes
                && turnLedgerMaxBytes == c.turnLedgerMaxBytes
                && turnState == c.turnState
                && Objects.equals(stateTopic, c.stateTopic)
                && Objects.equals(turnStateSettings, c.turnStateSettings)
                && Objects.equals(stateRestoreTimeout, c.stateRestoreTimeout)
                && Objects.equals(principal, c.principal)
                && Objects.equals(sessionTimeout, c.sessionTimeout)
                && Objects.equals(heartbeatInterval, c.heartbeatInterval)
                && Objects.equals(consumerProperties, c.consumerProperties)
                && Objects.equals(producerProperties, c.producerProperties)
                && Objects.equals(adminProperties, c.adminProperties);
    }

    @Override
    public int hashCode() {
        return Objects.hash(bootstrapServers, callsTopic, resultsTopic, deadLetterTopic, groupId, clientId, createTopics, topicPartitions, replicationFactor, maxPollRecords, maxBufferedRecords, pollTimeout, commitInterval, revokeTimeout, maxEventBytes, shutdownTimeout, delivery, transactionInterval, hangingTransactionSweep, maxDeliveries, turnLedgerTopic, turnLedgerWindow, maxRecordedBytes, turnLedgerMaxBytes, turnState, stateTopic, turnStateSettings, stateRestoreTimeout, principal, sessionTimeout, heartbeatInterval, consumerProperties, producerProperties, adminProperties);
    }

    @Override
    public String toString() {
        return "KafkaBusConfig["
                + "bootstrapServers=" + bootstrapServers
                + ", callsTopic=" + callsTopic
                + ", resultsTopic=" + resultsTopic
                + ", deadLetterTopic=" + deadLetterTopic
                + ", groupId=" + groupId
                + ", clientId=" + clientId
                + ", createTopics=" + createTopics
                + ", topicPartitions=" + topicPartitions
                + ", replicationFactor=" + replicationFactor
                + ", maxPollRecords=" + maxPollRecords
                + ", maxBufferedRecords=" + maxBufferedRecords
                + ", pollTimeout=" + pollTimeout
                + ", commitInterval=" + commitInterval
                + ", revokeTimeout=" + revokeTimeout
                + ", maxEventBytes=" + maxEventBytes
                + ", shutdownTimeout=" + shutdownTimeout
                + ", delivery=" + delivery
                + ", transactionInterval=" + transactionInterval
                + ", hangingTransactionSweep=" + hangingTransactionSweep()
                + ", maxDeliveries=" + maxDeliveries
                + ", turnLedgerTopic=" + turnLedgerTopic
                + ", turnLedgerWindow=" + turnLedgerWindow
                + ", maxRecordedBytes=" + maxRecordedBytes
                + ", turnLedgerMaxBytes=" + turnLedgerMaxBytes
                + ", turnState=" + turnState
                + ", stateTopic=" + stateTopic
                + ", turnStateSettings=" + turnStateSettings
                + ", stateRestoreTimeout=" + stateRestoreTimeout
                + ", principal=" + principal
                + ", sessionTimeout=" + sessionTimeout
                + ", heartbeatInterval=" + heartbeatInterval
                + ", consumerProperties=" + consumerProperties
                + ", producerProperties=" + producerProperties
                + ", adminProperties=" + adminProperties
                + "]";
    }

    /** Whether finished turns are recorded (exactly once with a window). */
    public boolean turnLedgerEnabled() {
        return delivery == KafkaDelivery.EXACTLY_ONCE && !turnLedgerWindow.isZero();
    }

    /** The defaults (with a fresh unique client id). */
    public static KafkaBusConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder initialised from these settings. */
    public Builder toBuilder() {
        Builder b = new Builder()
                .bootstrapServers(bootstrapServers).callsTopic(callsTopic).resultsTopic(resultsTopic)
                .deadLetterTopic(deadLetterTopic).groupId(groupId).clientId(clientId).createTopics(createTopics)
                .topicPartitions(topicPartitions).replicationFactor(replicationFactor).maxPollRecords(maxPollRecords)
                .maxBufferedRecords(maxBufferedRecords).pollTimeout(pollTimeout).commitInterval(commitInterval)
                .revokeTimeout(revokeTimeout).maxEventBytes(maxEventBytes).shutdownTimeout(shutdownTimeout)
                .delivery(delivery).transactionInterval(transactionInterval).maxDeliveries(maxDeliveries)
                .turnLedgerTopic(turnLedgerTopic).turnLedgerWindow(turnLedgerWindow).maxRecordedBytes(maxRecordedBytes)
                .turnLedgerMaxBytes(turnLedgerMaxBytes).turnState(turnState)
                .turnStateSettings(turnStateSettings).stateRestoreTimeout(stateRestoreTimeout).principal(principal);
        if (!stateTopic.equals(stateTopicFor(callsTopic))) {
            b.stateTopic(stateTopic); // the default follows the calls topic
        }
        b.sessionTimeout = sessionTimeout;
        b.heartbeatInterval = heartbeatInterval;
        b.hangingTransactionSweep = hangingTransactionSweep; // unset follows the transaction timeout
        consumerProperties.forEach(b::consumerProperty);
        producerProperties.forEach(b::producerProperty);
        adminProperties.forEach(b::adminProperty);
        return b;
    }

    /** The default ledger topic of a calls topic: {@code x.calls} → {@code x.turns}, else {@code <calls>.turns}. */
    static String ledgerTopicFor(String callsTopic) {
        return callsTopic.endsWith(".calls")
                ? callsTopic.substring(0, callsTopic.length() - ".calls".length()) + ".turns" : callsTopic + ".turns";
    }

    /** The default state topic of a calls topic: {@code x.calls} → {@code x.state}, else {@code <calls>.state}. */
    static String stateTopicFor(String callsTopic) {
        return callsTopic.endsWith(".calls")
                ? callsTopic.substring(0, callsTopic.length() - ".calls".length()) + ".state" : callsTopic + ".state";
    }

    static String uniqueClientId() {
        String runtime = ManagementFactory.getRuntimeMXBean().getName(); // pid@host
        int at = runtime.indexOf('@');
        String name = at > 0 ? runtime.substring(at + 1) + "-" + runtime.substring(0, at) : runtime;
        return "toolbus-" + name + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Builder of {@link KafkaBusConfig}; each setter validates its value at once. */
    public static final class Builder {
        private String bootstrapServers = DEFAULT_BOOTSTRAP_SERVERS;
        private String callsTopic = DEFAULT_CALLS_TOPIC;
        private String resultsTopic = DEFAULT_RESULTS_TOPIC;
        private String deadLetterTopic = DEFAULT_DEAD_LETTER_TOPIC;
        private String groupId = DEFAULT_GROUP_ID;
        private String clientId;
        private boolean createTopics = true;
        private int topicPartitions = DEFAULT_TOPIC_PARTITIONS;
        private short replicationFactor;
        private int maxPollRecords = DEFAULT_MAX_POLL_RECORDS;
        private int maxBufferedRecords = DEFAULT_MAX_BUFFERED_RECORDS;
        private Duration pollTimeout = DEFAULT_POLL_TIMEOUT;
        private Duration commitInterval = DEFAULT_COMMIT_INTERVAL;
        private Duration revokeTimeout = DEFAULT_REVOKE_TIMEOUT;
        private int maxEventBytes = DEFAULT_MAX_EVENT_BYTES;
        private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;
        private KafkaDelivery delivery = KafkaDelivery.EXACTLY_ONCE;
        private Duration transactionInterval = DEFAULT_TRANSACTION_INTERVAL;
        private Duration hangingTransactionSweep;
        private int maxDeliveries = DEFAULT_MAX_DELIVERIES;
        private String turnLedgerTopic;
        private Duration turnLedgerWindow = DEFAULT_TURN_LEDGER_WINDOW;
        private int maxRecordedBytes = DEFAULT_MAX_RECORDED_BYTES;
        private long turnLedgerMaxBytes = DEFAULT_TURN_LEDGER_MAX_BYTES;
        private boolean turnState = true;
        private String stateTopic;
        private TurnStateSettings turnStateSettings = TurnStateSettings.DEFAULTS;
        private Duration stateRestoreTimeout = DEFAULT_STATE_RESTORE_TIMEOUT;
        private String principal = DEFAULT_PRINCIPAL;
        private Duration sessionTimeout;
        private Duration heartbeatInterval;
        private final Map<String, String> consumerProperties = new LinkedHashMap<>();
        private final Map<String, String> producerProperties = new LinkedHashMap<>();
        private final Map<String, String> adminProperties = new LinkedHashMap<>();

        private Builder() {
        }

        /** {@code host:port[,host:port]}, or a {@code kafka://host:port[,host:port]} URI. */
        public Builder bootstrapServers(String servers) {
            requireText(servers, "bootstrapServers");
            String s = servers.startsWith("kafka://") ? servers.substring("kafka://".length()) : servers;
            int query = s.indexOf('?');
            s = query >= 0 ? s.substring(0, query) : s; // the query is KafkaBus.fromUri's
            int slash = s.indexOf('/');
            s = slash >= 0 ? s.substring(0, slash) : s;
            for (String hp : s.split(",")) {
                int colon = hp.lastIndexOf(':');
                requireArgument(colon > 0 && colon < hp.length() - 1 && hp.substring(colon + 1).chars().allMatch(Character::isDigit),
                        "bootstrapServers must be host:port[,host:port], got '" + servers + "'");
            }
            this.bootstrapServers = s;
            return this;
        }

        public Builder callsTopic(String topic) {
            requireText(topic, "callsTopic");
            this.callsTopic = topic;
            return this;
        }

        public Builder resultsTopic(String topic) {
            requireText(topic, "resultsTopic");
            this.resultsTopic = topic;
            return this;
        }

        public Builder deadLetterTopic(String topic) {
            requireText(topic, "deadLetterTopic");
            this.deadLetterTopic = topic;
            return this;
        }

        public Builder groupId(String groupId) {
            requireText(groupId, "groupId");
            this.groupId = groupId;
            return this;
        }

        public Builder clientId(String clientId) {
            requireText(clientId, "clientId");
            this.clientId = clientId;
            return this;
        }

        public Builder createTopics(boolean create) {
            this.createTopics = create;
            return this;
        }

        public Builder topicPartitions(int n) {
            requireArgument(n >= 1, "topicPartitions must be at least 1, got " + n);
            this.topicPartitions = n;
            return this;
        }

        /** Replication of created topics; 0 uses the broker's default. */
        public Builder replicationFactor(int n) {
            requireArgument(n >= 0 && n <= Short.MAX_VALUE, "replicationFactor must be in 0..32767, got " + n);
            this.replicationFactor = (short) n;
            return this;
        }

        public Builder maxPollRecords(int n) {
            requireArgument(n >= 1, "maxPollRecords must be at least 1, got " + n);
            this.maxPollRecords = n;
            return this;
        }

        public Builder maxBufferedRecords(int n) {
            requireArgument(n >= 1, "maxBufferedRecords must be at least 1, got " + n);
            this.maxBufferedRecords = n;
            return this;
        }

        public Builder pollTimeout(Duration d) {
            requirePositive(d, "pollTimeout");
            this.pollTimeout = d;
            return this;
        }

        public Builder commitInterval(Duration d) {
            requirePositive(d, "commitInterval");
            this.commitInterval = d;
            return this;
        }

        public Builder revokeTimeout(Duration d) {
            requireNotNegative(d, "revokeTimeout");
            this.revokeTimeout = d;
            return this;
        }

        public Builder maxEventBytes(int n) {
            requireArgument(n >= 1024, "maxEventBytes must be at least 1024, got " + n);
            this.maxEventBytes = n;
            return this;
        }

        public Builder shutdownTimeout(Duration d) {
            requireNotNegative(d, "shutdownTimeout");
            this.shutdownTimeout = d;
            return this;
        }

        /** Exactly-once results (the default) or at least once. */
        public Builder delivery(KafkaDelivery d) {
            this.delivery = Objects.requireNonNull(d, "delivery");
            return this;
        }

        /** How often, in exactly-once mode, staged results and offsets are committed in one transaction. */
        public Builder transactionInterval(Duration d) {
            requirePositive(d, "transactionInterval");
            this.transactionInterval = d;
            return this;
        }

        /**
         * How often an exactly-once bus looks for hanging transactions on its output topics and aborts them
         * (docs/buses.md): zero turns it off, else at least 1 s. Default: twice the producer's
         * {@code transaction.timeout.ms} (10 s unless a producer property sets it), at least 10 s.
         */
        public Builder hangingTransactionSweep(Duration d) {
            requireNotNegative(d, "hangingTransactionSweep");
            requireArgument(d.isZero() || d.toMillis() >= 1_000,
                    "hangingTransactionSweep must be zero (off) or at least 1 s, got " + d);
            this.hangingTransactionSweep = d;
            return this;
        }

        /** Owners that may take a record without completing it before it is dead-lettered. */
        public Builder maxDeliveries(int n) {
            requireArgument(n >= 1, "maxDeliveries must be at least 1, got " + n);
            this.maxDeliveries = n;
            return this;
        }

        public Builder turnLedgerTopic(String topic) {
            requireText(topic, "turnLedgerTopic");
            this.turnLedgerTopic = topic;
            return this;
        }

        /** How long a finished turn is remembered (exactly once only); zero turns idempotent turns off. */
        public Builder turnLedgerWindow(Duration d) {
            requireNotNegative(d, "turnLedgerWindow");
            this.turnLedgerWindow = d;
            return this;
        }

        /** Largest events of a turn kept for a replay. */
        public Builder maxRecordedBytes(int n) {
            requireArgument(n >= 0, "maxRecordedBytes must not be negative, got " + n);
            this.maxRecordedBytes = n;
            return this;
        }

        /** Finished turns kept in memory per instance, in bytes. */
        public Builder turnLedgerMaxBytes(long n) {
            requireArgument(n >= 0, "turnLedgerMaxBytes must not be negative, got " + n);
            this.turnLedgerMaxBytes = n;
            return this;
        }

        /**
         * Whether the turn state is kept in the state topic (default true). False: in the executor's memory,
         * so after a crash a tool that is not retry-safe can run twice and approvals are asked again.
         */
        public Builder turnState(boolean keep) {
            this.turnState = keep;
            return this;
        }

        /** The compacted topic of the turn state (default: the calls topic's name with {@code .state} for {@code .calls}). */
        public Builder stateTopic(String topic) {
            requireText(topic, "stateTopic");
            this.stateTopic = topic;
            return this;
        }

        /** Bounds and lifetimes of the turn state's records. */
        public Builder turnStateSettings(TurnStateSettings settings) {
            this.turnStateSettings = Objects.requireNonNull(settings, "turnStateSettings");
            return this;
        }

        /** How long a partition's state may take to read on assignment: 1 s .. 10 min (default 60 s). */
        public Builder stateRestoreTimeout(Duration d) {
            requireArgument(d != null && d.toMillis() >= 1_000 && d.toMillis() <= 600_000,
                    "stateRestoreTimeout must be 1 s .. 10 min, got " + d);
            this.stateRestoreTimeout = d;
            return this;
        }

        /** The name of the bus's principal (default {@value #DEFAULT_PRINCIPAL}). */
        public Builder principal(String name) {
            requireText(name, "principal");
            requireArgument(name.length() <= 256, "principal must be at most 256 characters");
            this.principal = name.strip();
            return this;
        }

        /**
         * How long an instance that stopped heartbeating keeps its partitions before the group gives them to
         * another ({@code session.timeout.ms}): 1 s .. 30 min (default: Kafka's, 45 s). Shorter: a dead
         * instance's turns move sooner; a long GC pause or network blip moves them too (the instance that
         * wakes is fenced). The broker bounds it ({@code group.min.session.timeout.ms}, 6 s by default).
         */
        public Builder sessionTimeout(Duration d) {
            requireArgument(d != null && d.toMillis() >= 1_000 && d.toMillis() <= 1_800_000,
                    "sessionTimeout must be 1 s .. 30 min, got " + d);
            this.sessionTimeout = d;
            return this;
        }

        /**
         * How often the consumer heartbeats ({@code heartbeat.interval.ms}): 100 ms and more, below the session
         * timeout (default: a third of the session timeout when set, at most 3 s; else Kafka's 3 s).
         */
        public Builder heartbeatInterval(Duration d) {
            requireArgument(d != null && d.toMillis() >= 100, "heartbeatInterval must be at least 100 ms, got " + d);
            this.heartbeatInterval = d;
            return this;
        }

        /** A kafka-clients admin client setting that overrides the bus's (topic creation, the sweep for hanging transactions). */
        public Builder adminProperty(String key, String value) {
            requireText(key, "admin property name");
            adminProperties.put(key, Objects.requireNonNull(value, key));
            return this;
        }

        /**
         * A kafka-clients consumer setting that overrides the bus's (for example {@code max.poll.interval.ms}
         * or the security settings). The settings the delivery guarantees rest on are refused
         * ({@link #RESERVED_CONSUMER_PROPERTIES}): the bus commits offsets itself, reads committed records only,
         * and names its group and client through {@link #groupId} and {@link #clientId}.
         *
         * @throws IllegalArgumentException for a reserved setting
         */
        public Builder consumerProperty(String key, String value) {
            requireText(key, "consumer property name");
            requireArgument(!RESERVED_CONSUMER_PROPERTIES.containsKey(key), "consumer property '" + key
                    + "' is the bus's own: " + RESERVED_CONSUMER_PROPERTIES.get(key));
            consumerProperties.put(key, Objects.requireNonNull(value, key));
            return this;
        }

        /**
         * A kafka-clients producer setting that overrides the bus's (for example {@code linger.ms},
         * {@code transaction.timeout.ms} or the security settings). The settings the delivery guarantees rest
         * on are refused ({@link #RESERVED_PRODUCER_PROPERTIES}).
         *
         * @throws IllegalArgumentException for a reserved setting
         */
        public Builder producerProperty(String key, String value) {
            requireText(key, "producer property name");
            requireArgument(!RESERVED_PRODUCER_PROPERTIES.containsKey(key), "producer property '" + key
                    + "' is the bus's own: " + RESERVED_PRODUCER_PROPERTIES.get(key));
            producerProperties.put(key, Objects.requireNonNull(value, key));
            return this;
        }

        public KafkaBusConfig build() {
            requireArgument(!callsTopic.equals(resultsTopic), "resultsTopic must differ from callsTopic");
            requireArgument(!callsTopic.equals(deadLetterTopic), "deadLetterTopic must differ from callsTopic");
            String ledger = turnLedgerTopic != null ? turnLedgerTopic : ledgerTopicFor(callsTopic);
            requireArgument(!ledger.equals(callsTopic) && !ledger.equals(resultsTopic) && !ledger.equals(deadLetterTopic),
                    "turnLedgerTopic must differ from the other topics");
            String state = stateTopic != null ? stateTopic : stateTopicFor(callsTopic);
            requireArgument(!state.equals(callsTopic) && !state.equals(resultsTopic) && !state.equals(deadLetterTopic)
                    && !state.equals(ledger), "stateTopic must differ from the other topics");
            requireArgument(heartbeatInterval == null || sessionTimeout == null
                    || heartbeatInterval.compareTo(sessionTimeout) < 0, "heartbeatInterval (" + heartbeatInterval
                    + ") must be shorter than sessionTimeout (" + sessionTimeout + ")");
            return new KafkaBusConfig(this);
        }
    }
}
