package dev.toolbus.bus.redis;

import static dev.toolbus.spi.Checks.requireArgument;
import static dev.toolbus.spi.Checks.requireNotNegative;
import static dev.toolbus.spi.Checks.requirePositive;
import static dev.toolbus.spi.Checks.requireText;

import dev.toolbus.protocol.EventCodec;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.TurnKey;
import dev.toolbus.spi.TurnStateSettings;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;

/**
 * Immutable settings of a {@link RedisStreamsBus}. Build them with {@link #builder()}; every setter
 * checks its value at once and throws {@link IllegalArgumentException} naming the setting.
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>callsStream</td><td>{@value #DEFAULT_CALLS_STREAM}</td><td>stream the turns arrive on (field {@code event})</td></tr>
 *   <tr><td>group</td><td>{@value #DEFAULT_GROUP}</td><td>consumer group; created at the stream's start ({@code 0}) with MKSTREAM</td></tr>
 *   <tr><td>consumer</td><td>host-pid-random</td><td>this instance's consumer name, unique per process by default</td></tr>
 *   <tr><td>resultsKeyTemplate</td><td>{@value #DEFAULT_RESULTS_KEY_TEMPLATE}</td><td>results stream per conversation; {@code {stream_id}} is replaced</td></tr>
 *   <tr><td>resultsMaxLen</td><td>{@value #DEFAULT_RESULTS_MAX_LEN}</td><td>approximate ({@code MAXLEN ~}) trim of a results stream; 0 keeps everything</td></tr>
 *   <tr><td>deadLetterStream</td><td>{@value #DEFAULT_DEAD_LETTER_STREAM}</td><td>where poison events go, with a reason</td></tr>
 *   <tr><td>deadLetterMaxLen</td><td>{@value #DEFAULT_DEAD_LETTER_MAX_LEN}</td><td>approximate trim of the dead-letter stream; 0 keeps everything</td></tr>
 *   <tr><td>batchSize</td><td>{@value #DEFAULT_BATCH_SIZE}</td><td>largest {@code XREADGROUP COUNT} (never above the executor's demand)</td></tr>
 *   <tr><td>blockTimeout</td><td>1 s</td><td>{@code XREADGROUP BLOCK}; also bounds how long a shutdown waits for the read in progress</td></tr>
 *   <tr><td>claimMinIdle</td><td>30 s</td><td>entries pending this long with another consumer are taken over ({@code XAUTOCLAIM})</td></tr>
 *   <tr><td>claimInterval</td><td>5 s</td><td>how often the claim loop runs (it also refreshes the gauges)</td></tr>
 *   <tr><td>claimBatch</td><td>{@value #DEFAULT_CLAIM_BATCH}</td><td>{@code XAUTOCLAIM COUNT}</td></tr>
 *   <tr><td>doneMarkerPrefix</td><td>{@value #DEFAULT_DONE_MARKER_PREFIX}</td><td>the turn's key: prefix + the turn's {@link TurnKey#hash() hash} (principal, stream_id, turn_id), holding its running-turn claim ({@code c:<consumer>}) while it runs and its finished-turn marker once it finished; the turn state lives beside it ({@code state:} in place of {@code done:})</td></tr>
 *   <tr><td>doneMarkerTtl</td><td>1 h</td><td>how long a finished-turn marker lives; {@link Duration#ZERO} turns markers off</td></tr>
 *   <tr><td>maxEventBytes</td><td>1 MiB</td><td>larger entries are dead-lettered by the bus without being decoded</td></tr>
 *   <tr><td>shutdownTimeout</td><td>30 s</td><td>how long {@code closeGracefully} waits for delivered turns to be acknowledged</td></tr>
 *   <tr><td>maxRecordedBytes</td><td>64 KiB</td><td>a finished turn's events up to this size are kept with its marker and published again (marked {@code replayed}) when the same turn arrives again</td></tr>
 *   <tr><td>writeBatchBytes</td><td>1 MiB</td><td>largest script call of batched writes: the turns' result writes (their events) and admissions (their keys) queued while one call is on the wire go out together up to this many bytes (and 64 writes or 128 admissions); a single larger write goes alone</td></tr>
 *   <tr><td>maxDeliveries</td><td>{@value #DEFAULT_MAX_DELIVERIES}</td><td>an entry delivered more often is dead-lettered, with an {@code error} event on its stream</td></tr>
 *   <tr><td>instanceId</td><td>none</td><td>the executor's {@code instanceId} (the part of approval and input ids that names their instance); control events are shared across instances only when it is set</td></tr>
 *   <tr><td>principal</td><td>the calls stream's name</td><td>who sends the turns and answers read from this bus ({@link Principal#bus}): part of every key of its turns' state; every instance of a deployment must have the same</td></tr>
 *   <tr><td>turnState</td><td>{@link TurnStateSettings#DEFAULTS}</td><td>lifetimes and bounds of the turn state in this Redis (keys {@code state:} beside the markers): call journal, approval requests and questions, held answers, session grants, cut results</td></tr>
 *   <tr><td>controlChannel</td><td>{@value #DEFAULT_CONTROL_CHANNEL}</td><td>pub/sub channel of cancels for every instance; {@code <channel>:<instanceId>} carries an instance's answers</td></tr>
 * </table>
 */
public final class RedisStreamsConfig {

    public static final String DEFAULT_CALLS_STREAM = "toolbus:calls";
    public static final String DEFAULT_GROUP = "toolbus";
    public static final String STREAM_ID_PLACEHOLDER = "{stream_id}";
    public static final String DEFAULT_RESULTS_KEY_TEMPLATE = "toolbus:results:" + STREAM_ID_PLACEHOLDER;
    public static final long DEFAULT_RESULTS_MAX_LEN = 10_000;
    public static final String DEFAULT_DEAD_LETTER_STREAM = "toolbus:dead";
    public static final long DEFAULT_DEAD_LETTER_MAX_LEN = 100_000;
    public static final int DEFAULT_BATCH_SIZE = 128;
    public static final Duration DEFAULT_BLOCK_TIMEOUT = Duration.ofSeconds(1);
    public static final Duration DEFAULT_CLAIM_MIN_IDLE = Duration.ofSeconds(30);
    public static final Duration DEFAULT_CLAIM_INTERVAL = Duration.ofSeconds(5);
    public static final int DEFAULT_CLAIM_BATCH = 100;
    public static final String DEFAULT_DONE_MARKER_PREFIX = "toolbus:done:";
    public static final Duration DEFAULT_DONE_MARKER_TTL = Duration.ofHours(1);
    public static final int DEFAULT_MAX_EVENT_BYTES = EventCodec.DEFAULT_MAX_EVENT_BYTES;
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_DELIVERIES = 5;
    public static final int DEFAULT_MAX_RECORDED_BYTES = 64 * 1024;
    public static final int DEFAULT_WRITE_BATCH_BYTES = 1024 * 1024;
    public static final String DEFAULT_CONTROL_CHANNEL = "toolbus:control";

    private final String callsStream;
    private final String group;
    private final String consumer;
    private final String resultsKeyTemplate;
    private final long resultsMaxLen;
    private final String deadLetterStream;
    private final long deadLetterMaxLen;
    private final int batchSize;
    private final Duration blockTimeout;
    private final Duration claimMinIdle;
    private final Duration claimInterval;
    private final int claimBatch;
    private final String doneMarkerPrefix;
    private final Duration doneMarkerTtl;
    private final int maxEventBytes;
    private final Duration shutdownTimeout;
    private final int maxRecordedBytes;
    private final int writeBatchBytes;
    private final int maxDeliveries;
    private final String instanceId;
    private final String controlChannel;
    private final String principal;
    private final Principal busPrincipal;
    private final TurnStateSettings turnState;

    private RedisStreamsConfig(Builder b) {
        this.callsStream = b.callsStream;
        this.group = b.group;
        this.consumer = b.consumer != null ? b.consumer : uniqueConsumerName();
        this.resultsKeyTemplate = b.resultsKeyTemplate;
        this.resultsMaxLen = b.resultsMaxLen;
        this.deadLetterStream = b.deadLetterStream;
        this.deadLetterMaxLen = b.deadLetterMaxLen;
        this.batchSize = b.batchSize;
        this.blockTimeout = b.blockTimeout;
        this.claimMinIdle = b.claimMinIdle;
        this.claimInterval = b.claimInterval;
        this.claimBatch = b.claimBatch;
        this.doneMarkerPrefix = b.doneMarkerPrefix;
        this.doneMarkerTtl = b.doneMarkerTtl;
        this.maxEventBytes = b.maxEventBytes;
        this.shutdownTimeout = b.shutdownTimeout;
        this.maxRecordedBytes = b.maxRecordedBytes;
        this.writeBatchBytes = b.writeBatchBytes;
        this.maxDeliveries = b.maxDeliveries;
        this.instanceId = b.instanceId;
        this.controlChannel = b.controlChannel;
        this.principal = b.principal;
        this.busPrincipal = Principal.bus(principal != null ? principal : callsStream);
        this.turnState = b.turnState;
    }

    /** The stream turns arrive on. */
    public String callsStream() {
        return callsStream;
    }

    /** The consumer group. */
    public String group() {
        return group;
    }

    /** This instance's consumer name. */
    public String consumer() {
        return consumer;
    }

    /** Key of a conversation's results stream, with {@code {stream_id}}. */
    public String resultsKeyTemplate() {
        return resultsKeyTemplate;
    }

    /** Approximate length bound of a results stream, 0 for none. */
    public long resultsMaxLen() {
        return resultsMaxLen;
    }

    /** The dead-letter stream. */
    public String deadLetterStream() {
        return deadLetterStream;
    }

    /** Approximate length bound of the dead-letter stream, 0 for none. */
    public long deadLetterMaxLen() {
        return deadLetterMaxLen;
    }

    /** Largest read batch. */
    public int batchSize() {
        return batchSize;
    }

    /** How long one read blocks. */
    public Duration blockTimeout() {
        return blockTimeout;
    }

    /** Idle time after which a pending entry is taken over. */
    public Duration claimMinIdle() {
        return claimMinIdle;
    }

    /** Period of the claim loop. */
    public Duration claimInterval() {
        return claimInterval;
    }

    /** Entries taken over per claim round. */
    public int claimBatch() {
        return claimBatch;
    }

    /** Prefix of finished-turn markers. */
    public String doneMarkerPrefix() {
        return doneMarkerPrefix;
    }

    /** Lifetime of finished-turn markers, zero for no markers. */
    public Duration doneMarkerTtl() {
        return doneMarkerTtl;
    }

    /** Largest accepted event. */
    public int maxEventBytes() {
        return maxEventBytes;
    }

    /** Bound of a graceful shutdown's wait. */
    public Duration shutdownTimeout() {
        return shutdownTimeout;
    }

    /** Largest events of a turn kept for a replay. */
    public int maxRecordedBytes() {
        return maxRecordedBytes;
    }

    /** Largest batched script call (result writes, admissions), in bytes of its arguments. */
    public int writeBatchBytes() {
        return writeBatchBytes;
    }

    /** Deliveries after which an input is dead-lettered. */
    public int maxDeliveries() {
        return maxDeliveries;
    }

    /** The executor's instance id, or null (control events are not shared). */
    public String instanceId() {
        return instanceId;
    }

    /** Pub/sub channel prefix of shared control events. */
    public String controlChannel() {
        return controlChannel;
    }

    /** Lifetimes and bounds of the turn state kept in this Redis. */
    public TurnStateSettings turnState() {
        return turnState;
    }

    /** Who sends the turns and answers read from this bus: {@code bus:<principal>} (default the calls stream's name). */
    public Principal principal() {
        return busPrincipal;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof RedisStreamsConfig c)) {
            return false;
        }
        return Objects.equals(callsStream, c.callsStream)
                && Objects.equals(group, c.group)
                && Objects.equals(consumer, c.consumer)
                && Objects.equals(resultsKeyTemplate, c.resultsKeyTemplate)
                && resultsMaxLen == c.resultsMaxLen
                && Objects.equals(deadLetterStream, c.deadLetterStream)
                && deadLetterMaxLen == c.deadLetterMaxLen
                && batchSize == c.batchSize
                && Objects.equals(blockTimeout, c.blockTimeout)
                && Objects.equals(claimMinIdle, c.claimMinIdle)
                && Objects.equals(claimInterval, c.claimInterval)
                && claimBatch == c.claimBatch
                && Objects.equals(doneMarkerPrefix, c.doneMarkerPrefix)
                && Objects.equals(doneMarkerTtl, c.doneMarkerTtl)
                && maxEventBytes == c.maxEventBytes
                && Objects.equals(shutdownTimeout, c.shutdownTimeout)
                && maxRecordedBytes == c.maxRecordedBytes
                && writeBatchBytes == c.writeBatchBytes
                && maxDeliveries == c.maxDeliveries
                && Objects.equals(instanceId, c.instanceId)
                && Objects.equals(controlChannel, c.controlChannel)
                && Objects.equals(principal, c.principal)
                && turnState.equals(c.turnState);
    }

    @Override
    public int hashCode() {
        return Objects.hash(callsStream, group, consumer, resultsKeyTemplate, resultsMaxLen, deadLetterStream, deadLetterMaxLen, batchSize, blockTimeout, claimMinIdle, claimInterval, claimBatch, doneMarkerPrefix, doneMarkerTtl, maxEventBytes, shutdownTimeout, maxRecordedBytes, writeBatchBytes, maxDeliveries, instanceId, controlChannel, principal, turnState);
    }

    @Override
    public String toString() {
        return "RedisStreamsConfig["
                + "callsStream=" + callsStream
                + ", group=" + group
                + ", consumer=" + consumer
                + ", resultsKeyTemplate=" + resultsKeyTemplate
                + ", resultsMaxLen=" + resultsMaxLen
                + ", deadLetterStream=" + deadLetterStream
                + ", deadLetterMaxLen=" + deadLetterMaxLen
                + ", batchSize=" + batchSize
                + ", blockTimeout=" + blockTimeout
                + ", claimMinIdle=" + claimMinIdle
                + ", claimInterval=" + claimInterval
                + ", claimBatch=" + claimBatch
                + ", doneMarkerPrefix=" + doneMarkerPrefix
                + ", doneMarkerTtl=" + doneMarkerTtl
                + ", maxEventBytes=" + maxEventBytes
                + ", shutdownTimeout=" + shutdownTimeout
                + ", maxRecordedBytes=" + maxRecordedBytes
                + ", writeBatchBytes=" + writeBatchBytes
                + ", maxDeliveries=" + maxDeliveries
                + ", instanceId=" + instanceId
                + ", controlChannel=" + controlChannel
                + ", principal=" + busPrincipal.id()
                + ", turnState=" + turnState
                + "]";
    }

    /** The defaults (with a fresh unique consumer name). */
    public static RedisStreamsConfig defaults() {
        return builder().build();
    }

    /** A builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder initialised from these settings. */
    public Builder toBuilder() {
        return new Builder()
                .callsStream(callsStream).group(group).consumer(consumer)
                .resultsKeyTemplate(resultsKeyTemplate).resultsMaxLen(resultsMaxLen)
                .deadLetterStream(deadLetterStream).deadLetterMaxLen(deadLetterMaxLen)
                .batchSize(batchSize).blockTimeout(blockTimeout)
                .claimMinIdle(claimMinIdle).claimInterval(claimInterval).claimBatch(claimBatch)
                .doneMarkerPrefix(doneMarkerPrefix).doneMarkerTtl(doneMarkerTtl)
                .maxEventBytes(maxEventBytes).shutdownTimeout(shutdownTimeout)
                .maxRecordedBytes(maxRecordedBytes).writeBatchBytes(writeBatchBytes).maxDeliveries(maxDeliveries).instanceId(instanceId).controlChannel(controlChannel).principal(principal)
                .turnState(turnState);
    }

    /** The pub/sub channel of control answers for one instance. */
    public String controlChannel(String instance) {
        return controlChannel + ":" + instance;
    }

    /** The results stream of a conversation. */
    public String resultsKey(String streamId) {
        return resultsKeyTemplate.replace(STREAM_ID_PLACEHOLDER, streamId);
    }

    /**
     * The finished-turn marker of a turn of this bus's {@link #principal()}: the prefix and the turn's
     * {@link TurnKey#hash()}, so no two turns share a key whatever their ids hold ({@code (chat:x, y:z)} and
     * {@code (chat:x:y, z)} differ), and a key's length does not depend on the ids.
     */
    public String doneMarkerKey(String streamId, String turnId) {
        return doneMarkerKey(TurnKey.of(busPrincipal, streamId, turnId));
    }

    /** The finished-turn marker of a turn. */
    public String doneMarkerKey(TurnKey turn) {
        return doneMarkerPrefix + turn.hash();
    }

    /**
     * The namespace of the keys beside the finished-turn markers: the marker prefix without its trailing
     * {@code done:} ({@code toolbus:} by default), else the whole prefix.
     */
    String keyNamespace() {
        return doneMarkerPrefix.endsWith("done:") ? doneMarkerPrefix.substring(0, doneMarkerPrefix.length() - 5)
                : doneMarkerPrefix;
    }

    /** Whether finished-turn markers are written and checked. */
    public boolean doneMarkersEnabled() {
        return !doneMarkerTtl.isZero();
    }

    /** A consumer name unique to this process: host, pid and a random suffix. */
    public static String uniqueConsumerName() {
        String runtime = ManagementFactory.getRuntimeMXBean().getName(); // pid@host
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        int at = runtime.indexOf('@');
        String name = at > 0 ? runtime.substring(at + 1) + "-" + runtime.substring(0, at) : runtime;
        return name + "-" + suffix;
    }

    private static void requireTemplate(String template) {
        requireText(template, "resultsKeyTemplate");
        requireArgument(template.contains(STREAM_ID_PLACEHOLDER),
                "resultsKeyTemplate must contain " + STREAM_ID_PLACEHOLDER + ", got '" + template + "'");
    }

    /** Builder of {@link RedisStreamsConfig}; each setter validates its value at once. */
    public static final class Builder {
        private String callsStream = DEFAULT_CALLS_STREAM;
        private String group = DEFAULT_GROUP;
        private String consumer;
        private String resultsKeyTemplate = DEFAULT_RESULTS_KEY_TEMPLATE;
        private long resultsMaxLen = DEFAULT_RESULTS_MAX_LEN;
        private String deadLetterStream = DEFAULT_DEAD_LETTER_STREAM;
        private long deadLetterMaxLen = DEFAULT_DEAD_LETTER_MAX_LEN;
        private int batchSize = DEFAULT_BATCH_SIZE;
        private Duration blockTimeout = DEFAULT_BLOCK_TIMEOUT;
        private Duration claimMinIdle = DEFAULT_CLAIM_MIN_IDLE;
        private Duration claimInterval = DEFAULT_CLAIM_INTERVAL;
        private int claimBatch = DEFAULT_CLAIM_BATCH;
        private String doneMarkerPrefix = DEFAULT_DONE_MARKER_PREFIX;
        private Duration doneMarkerTtl = DEFAULT_DONE_MARKER_TTL;
        private int maxEventBytes = DEFAULT_MAX_EVENT_BYTES;
        private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;
        private int maxDeliveries = DEFAULT_MAX_DELIVERIES;
        private int maxRecordedBytes = DEFAULT_MAX_RECORDED_BYTES;
        private int writeBatchBytes = DEFAULT_WRITE_BATCH_BYTES;
        private String instanceId;
        private String controlChannel = DEFAULT_CONTROL_CHANNEL;
        private String principal;
        private TurnStateSettings turnState = TurnStateSettings.DEFAULTS;

        private Builder() {
        }

        /**
         * Lifetimes and bounds of the turn state kept in this Redis (the call journal, approval requests
         * and questions, session grants, cut results); {@link TurnStateSettings#DEFAULTS} by default.
         */
        public Builder turnState(TurnStateSettings settings) {
            this.turnState = Objects.requireNonNull(settings, "turnState");
            return this;
        }

        /**
         * Who sends this bus's turns and answers ({@code bus:<id>}); null for the default, the calls
         * stream's name. Every instance of a deployment must use the same: it is part of the keys of its
         * turns' state.
         */
        public Builder principal(String id) {
            if (id != null) {
                Principal.bus(id); // fails early on a blank or too long id
            }
            this.principal = id;
            return this;
        }

        /** Largest events of a turn kept with its finished-turn marker for a replay (0: keep none). */
        public Builder maxRecordedBytes(int n) {
            requireArgument(n >= 0, "maxRecordedBytes must not be negative, got " + n);
            this.maxRecordedBytes = n;
            return this;
        }

        /**
         * Largest script call of batched writes, in bytes of the events (result writes) or keys
         * (admissions) it carries: a batch is sent when the next write would pass it. A single write
         * above it is sent alone. 1 KiB to 64 MiB.
         */
        public Builder writeBatchBytes(int n) {
            requireArgument(n >= 1024 && n <= 64 * 1024 * 1024, "writeBatchBytes must be in 1024..67108864, got " + n);
            this.writeBatchBytes = n;
            return this;
        }

        /** Deliveries after which an entry is dead-lettered instead of delivered again. */
        public Builder maxDeliveries(int n) {
            requireArgument(n >= 1, "maxDeliveries must be at least 1, got " + n);
            this.maxDeliveries = n;
            return this;
        }

        /**
         * The instance id of the executor this bus feeds ({@code ToolExecutor.Builder.instanceId}); with
         * it, control events read by this instance reach the instance that runs their turn. Null: off.
         */
        public Builder instanceId(String id) {
            requireArgument(id == null || !id.isBlank(), "instanceId must not be blank");
            this.instanceId = id;
            return this;
        }

        public Builder controlChannel(String channel) {
            requireText(channel, "controlChannel");
            this.controlChannel = channel;
            return this;
        }

        public Builder callsStream(String key) {
            requireText(key, "callsStream");
            this.callsStream = key;
            return this;
        }

        public Builder group(String group) {
            requireText(group, "group");
            this.group = group;
            return this;
        }

        /** This instance's consumer name. Two live instances must never share one. */
        public Builder consumer(String name) {
            requireText(name, "consumer");
            this.consumer = name;
            return this;
        }

        /** Key of a conversation's results stream; must contain {@code {stream_id}}. */
        public Builder resultsKeyTemplate(String template) {
            requireTemplate(template);
            this.resultsKeyTemplate = template;
            return this;
        }

        public Builder resultsMaxLen(long maxLen) {
            requireArgument(maxLen >= 0, "resultsMaxLen must not be negative, got " + maxLen);
            this.resultsMaxLen = maxLen;
            return this;
        }

        public Builder deadLetterStream(String key) {
            requireText(key, "deadLetterStream");
            this.deadLetterStream = key;
            return this;
        }

        public Builder deadLetterMaxLen(long maxLen) {
            requireArgument(maxLen >= 0, "deadLetterMaxLen must not be negative, got " + maxLen);
            this.deadLetterMaxLen = maxLen;
            return this;
        }

        public Builder batchSize(int n) {
            requireArgument(n >= 1 && n <= 10_000, "batchSize must be in 1..10000, got " + n);
            this.batchSize = n;
            return this;
        }

        public Builder blockTimeout(Duration d) {
            requirePositive(d, "blockTimeout");
            this.blockTimeout = d;
            return this;
        }

        public Builder claimMinIdle(Duration d) {
            requirePositive(d, "claimMinIdle");
            this.claimMinIdle = d;
            return this;
        }

        public Builder claimInterval(Duration d) {
            requirePositive(d, "claimInterval");
            this.claimInterval = d;
            return this;
        }

        public Builder claimBatch(int n) {
            requireArgument(n >= 1 && n <= 10_000, "claimBatch must be in 1..10000, got " + n);
            this.claimBatch = n;
            return this;
        }

        public Builder doneMarkerPrefix(String prefix) {
            requireText(prefix, "doneMarkerPrefix");
            this.doneMarkerPrefix = prefix;
            return this;
        }

        /** Lifetime of finished-turn markers; {@link Duration#ZERO} disables them. */
        public Builder doneMarkerTtl(Duration ttl) {
            requireNotNegative(ttl, "doneMarkerTtl");
            this.doneMarkerTtl = ttl;
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

        /** Builds the settings; cross-field rules are checked here. */
        public RedisStreamsConfig build() {
            requireArgument(!callsStream.equals(deadLetterStream), "deadLetterStream must differ from callsStream");
            return new RedisStreamsConfig(this);
        }
    }
}
