package dev.toolbus.spi;

import static dev.toolbus.spi.Checks.requireRange;

import java.time.Duration;
import java.util.Objects;

/**
 * The bounds and lifetimes of a turn state's records, for every implementation (in memory, Redis,
 * Kafka): how long journal records and settled requests are kept, and how many records and bytes each
 * facet may hold. Immutable; built with a strict builder that throws on a value out of range.
 *
 * <pre>{@code
 * TurnStateSettings s = TurnStateSettings.builder().recordTtl(Duration.ofHours(6)).journalMaxEntries(200_000).build();
 * }</pre>
 */
public final class TurnStateSettings {

    /** 1 hour. */
    public static final Duration DEFAULT_RECORD_TTL = Duration.ofHours(1);
    /** 100,000 calls. */
    public static final long DEFAULT_JOURNAL_MAX_ENTRIES = 100_000;
    /** 64 MiB. */
    public static final long DEFAULT_JOURNAL_MAX_BYTES = 64L << 20;
    /** 64 KiB. */
    public static final long DEFAULT_MAX_RECORDED_BYTES = 64L << 10;
    /** 10,000 requests. */
    public static final long DEFAULT_REQUESTS_MAX_ENTRIES = 10_000;
    /** 16 MiB. */
    public static final long DEFAULT_REQUESTS_MAX_BYTES = 16L << 20;
    /** 16 answers. */
    public static final int DEFAULT_HELD_PER_STREAM = 16;
    /** 64 KiB. */
    public static final long DEFAULT_HELD_BYTES_PER_STREAM = 64L << 10;
    /** 10,000 grants. */
    public static final long DEFAULT_GRANTS_MAX_ENTRIES = 10_000;
    /** 30 minutes. */
    public static final Duration DEFAULT_CUT_RESULTS_TTL = Duration.ofMinutes(30);
    /** 1,000 texts. */
    public static final long DEFAULT_CUT_RESULTS_MAX_ENTRIES = 1_000;
    /** 32 MiB. */
    public static final long DEFAULT_CUT_RESULTS_MAX_BYTES = 32L << 20;
    /** 64 texts. */
    public static final int DEFAULT_CUT_RESULTS_PER_STREAM = 64;

    /** Every default. */
    public static final TurnStateSettings DEFAULTS = builder().build();

    private final Duration recordTtl;
    private final long journalMaxEntries;
    private final long journalMaxBytes;
    private final long maxRecordedBytes;
    private final long requestsMaxEntries;
    private final long requestsMaxBytes;
    private final int heldPerStream;
    private final long heldBytesPerStream;
    private final long grantsMaxEntries;
    private final Duration cutResultsTtl;
    private final long cutResultsMaxEntries;
    private final long cutResultsMaxBytes;
    private final int cutResultsPerStream;

    private TurnStateSettings(Builder b) {
        this.recordTtl = b.recordTtl;
        this.journalMaxEntries = b.journalMaxEntries;
        this.journalMaxBytes = b.journalMaxBytes;
        this.maxRecordedBytes = b.maxRecordedBytes;
        this.requestsMaxEntries = b.requestsMaxEntries;
        this.requestsMaxBytes = b.requestsMaxBytes;
        this.heldPerStream = b.heldPerStream;
        this.heldBytesPerStream = b.heldBytesPerStream;
        this.grantsMaxEntries = b.grantsMaxEntries;
        this.cutResultsTtl = b.cutResultsTtl;
        this.cutResultsMaxEntries = b.cutResultsMaxEntries;
        this.cutResultsMaxBytes = b.cutResultsMaxBytes;
        this.cutResultsPerStream = b.cutResultsPerStream;
    }

    /** A builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder initialised from these settings. */
    public Builder toBuilder() {
        return new Builder().recordTtl(recordTtl).journalMaxEntries(journalMaxEntries).journalMaxBytes(journalMaxBytes)
                .maxRecordedBytes(maxRecordedBytes).requestsMaxEntries(requestsMaxEntries)
                .requestsMaxBytes(requestsMaxBytes).heldPerStream(heldPerStream).heldBytesPerStream(heldBytesPerStream)
                .grantsMaxEntries(grantsMaxEntries).cutResultsTtl(cutResultsTtl)
                .cutResultsMaxEntries(cutResultsMaxEntries).cutResultsMaxBytes(cutResultsMaxBytes)
                .cutResultsPerStream(cutResultsPerStream);
    }

    /**
     * How long a journal record is kept after its last write, and a request after its expiry: a turn run
     * again later than this runs its calls as new.
     */
    public Duration recordTtl() {
        return recordTtl;
    }

    /** The most journal records (started and finished calls). */
    public long journalMaxEntries() {
        return journalMaxEntries;
    }

    /** The journal's estimated bytes. */
    public long journalMaxBytes() {
        return journalMaxBytes;
    }

    /** The largest events of one call the journal keeps; larger ones are recorded without them. */
    public long maxRecordedBytes() {
        return maxRecordedBytes;
    }

    /** The most approval requests and questions kept. */
    public long requestsMaxEntries() {
        return requestsMaxEntries;
    }

    /** Their estimated bytes (requests, their events and answers). */
    public long requestsMaxBytes() {
        return requestsMaxBytes;
    }

    /** The most answers held for requests not raised yet, per stream. */
    public int heldPerStream() {
        return heldPerStream;
    }

    /** Their estimated bytes, per stream. */
    public long heldBytesPerStream() {
        return heldBytesPerStream;
    }

    /** The most session grants (beyond, the oldest go first). */
    public long grantsMaxEntries() {
        return grantsMaxEntries;
    }

    /** How long a cut result's full text is kept. */
    public Duration cutResultsTtl() {
        return cutResultsTtl;
    }

    /** The most full texts kept. */
    public long cutResultsMaxEntries() {
        return cutResultsMaxEntries;
    }

    /** Their estimated bytes; one text may take at most a quarter of it. */
    public long cutResultsMaxBytes() {
        return cutResultsMaxBytes;
    }

    /** The most full texts kept per stream (the stream's oldest go first). */
    public int cutResultsPerStream() {
        return cutResultsPerStream;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TurnStateSettings s && recordTtl.equals(s.recordTtl) && journalMaxEntries == s.journalMaxEntries
                && journalMaxBytes == s.journalMaxBytes && maxRecordedBytes == s.maxRecordedBytes
                && requestsMaxEntries == s.requestsMaxEntries && requestsMaxBytes == s.requestsMaxBytes
                && heldPerStream == s.heldPerStream && heldBytesPerStream == s.heldBytesPerStream
                && grantsMaxEntries == s.grantsMaxEntries && cutResultsTtl.equals(s.cutResultsTtl)
                && cutResultsMaxEntries == s.cutResultsMaxEntries && cutResultsMaxBytes == s.cutResultsMaxBytes
                && cutResultsPerStream == s.cutResultsPerStream;
    }

    @Override
    public int hashCode() {
        return Objects.hash(recordTtl, journalMaxEntries, journalMaxBytes, maxRecordedBytes, requestsMaxEntries,
                requestsMaxBytes, heldPerStream, heldBytesPerStream, grantsMaxEntries, cutResultsTtl,
                cutResultsMaxEntries, cutResultsMaxBytes, cutResultsPerStream);
    }

    @Override
    public String toString() {
        return "TurnStateSettings[recordTtl=" + recordTtl + ", journalMaxEntries=" + journalMaxEntries
                + ", journalMaxBytes=" + journalMaxBytes + ", maxRecordedBytes=" + maxRecordedBytes
                + ", requestsMaxEntries=" + requestsMaxEntries + ", requestsMaxBytes=" + requestsMaxBytes
                + ", heldPerStream=" + heldPerStream + ", heldBytesPerStream=" + heldBytesPerStream
                + ", grantsMaxEntries=" + grantsMaxEntries + ", cutResultsTtl=" + cutResultsTtl
                + ", cutResultsMaxEntries=" + cutResultsMaxEntries + ", cutResultsMaxBytes=" + cutResultsMaxBytes
                + ", cutResultsPerStream=" + cutResultsPerStream + "]";
    }

    /** Builder of {@link TurnStateSettings}; every setter throws {@link IllegalArgumentException} out of range. */
    public static final class Builder {
        private Duration recordTtl = DEFAULT_RECORD_TTL;
        private long journalMaxEntries = DEFAULT_JOURNAL_MAX_ENTRIES;
        private long journalMaxBytes = DEFAULT_JOURNAL_MAX_BYTES;
        private long maxRecordedBytes = DEFAULT_MAX_RECORDED_BYTES;
        private long requestsMaxEntries = DEFAULT_REQUESTS_MAX_ENTRIES;
        private long requestsMaxBytes = DEFAULT_REQUESTS_MAX_BYTES;
        private int heldPerStream = DEFAULT_HELD_PER_STREAM;
        private long heldBytesPerStream = DEFAULT_HELD_BYTES_PER_STREAM;
        private long grantsMaxEntries = DEFAULT_GRANTS_MAX_ENTRIES;
        private Duration cutResultsTtl = DEFAULT_CUT_RESULTS_TTL;
        private long cutResultsMaxEntries = DEFAULT_CUT_RESULTS_MAX_ENTRIES;
        private long cutResultsMaxBytes = DEFAULT_CUT_RESULTS_MAX_BYTES;
        private int cutResultsPerStream = DEFAULT_CUT_RESULTS_PER_STREAM;

        private Builder() {
        }

        /** 1 s .. 30 days (default 1 h). */
        public Builder recordTtl(Duration v) {
            recordTtl = Checks.requireMillis(v, 1_000, 30L * 86_400_000, "recordTtl");
            return this;
        }

        /** 1 and more (default 100000). */
        public Builder journalMaxEntries(long v) {
            journalMaxEntries = requireRange(v, 1, Long.MAX_VALUE, "journalMaxEntries");
            return this;
        }

        /** 1 KiB and more (default 64 MiB). */
        public Builder journalMaxBytes(long v) {
            journalMaxBytes = requireRange(v, 1024, Long.MAX_VALUE, "journalMaxBytes");
            return this;
        }

        /** 0 and more (default 64 KiB). */
        public Builder maxRecordedBytes(long v) {
            maxRecordedBytes = requireRange(v, 0, Long.MAX_VALUE, "maxRecordedBytes");
            return this;
        }

        /** 1 and more (default 10000). */
        public Builder requestsMaxEntries(long v) {
            requestsMaxEntries = requireRange(v, 1, Long.MAX_VALUE, "requestsMaxEntries");
            return this;
        }

        /** 1 KiB and more (default 16 MiB). */
        public Builder requestsMaxBytes(long v) {
            requestsMaxBytes = requireRange(v, 1024, Long.MAX_VALUE, "requestsMaxBytes");
            return this;
        }

        /** 0 (no holds) .. 10000 (default 16). */
        public Builder heldPerStream(int v) {
            heldPerStream = requireRange(v, 0, 10_000, "heldPerStream");
            return this;
        }

        /** 0 .. 64 MiB (default 64 KiB). */
        public Builder heldBytesPerStream(long v) {
            heldBytesPerStream = requireRange(v, 0, 64L << 20, "heldBytesPerStream");
            return this;
        }

        /** 1 and more (default 10000). */
        public Builder grantsMaxEntries(long v) {
            grantsMaxEntries = requireRange(v, 1, Long.MAX_VALUE, "grantsMaxEntries");
            return this;
        }

        /** 1 s .. 30 days (default 30 min). */
        public Builder cutResultsTtl(Duration v) {
            cutResultsTtl = Checks.requireMillis(v, 1_000, 30L * 86_400_000, "cutResultsTtl");
            return this;
        }

        /** 1 and more (default 1000). */
        public Builder cutResultsMaxEntries(long v) {
            cutResultsMaxEntries = requireRange(v, 1, Long.MAX_VALUE, "cutResultsMaxEntries");
            return this;
        }

        /** 1 KiB and more (default 32 MiB). */
        public Builder cutResultsMaxBytes(long v) {
            cutResultsMaxBytes = requireRange(v, 1024, Long.MAX_VALUE, "cutResultsMaxBytes");
            return this;
        }

        /** 1 .. 100000 (default 64). */
        public Builder cutResultsPerStream(int v) {
            cutResultsPerStream = requireRange(v, 1, 100_000, "cutResultsPerStream");
            return this;
        }

        /** The settings. */
        public TurnStateSettings build() {
            return new TurnStateSettings(this);
        }
    }
}
