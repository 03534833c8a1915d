package dev.toolbus.assembly;

import java.util.Locale;
import java.util.Objects;

/**
 * Which bus an assembly runs on: {@code stdio} (JSON lines on stdin and stdout), {@code in-memory}
 * (the gateway alone feeds the executor), {@code redis://HOST:PORT} (or {@code rediss://}),
 * {@code kafka://HOST:PORT[,HOST:PORT]}, or {@code none} (no bus: the caller drives the executor,
 * as {@code toolbus mcp} does).
 *
 * <pre>{@code
 * ToolbusAssembly.from(config).bus(BusAddress.parse("redis://127.0.0.1:6379")).build();
 * }</pre>
 *
 * @param scheme the bus kind: {@link #STDIO}, {@link #IN_MEMORY}, {@link #REDIS}, {@link #KAFKA} or {@link #NONE}
 * @param address the full value as given
 */
public record BusAddress(String scheme, String address) {

    /** JSON lines on stdin and stdout. */
    public static final String STDIO = "stdio";
    /** No input of its own: turns come through the gateway only. */
    public static final String IN_MEMORY = "in-memory";
    /** Redis Streams. */
    public static final String REDIS = "redis";
    /** Kafka. */
    public static final String KAFKA = "kafka";
    /** No bus at all. */
    public static final String NONE = "none";

    public BusAddress {
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(address, "address");
        if (!scheme.equals(STDIO) && !scheme.equals(IN_MEMORY) && !scheme.equals(REDIS) && !scheme.equals(KAFKA)
                && !scheme.equals(NONE)) {
            throw new IllegalArgumentException("unknown bus scheme '" + scheme + "'");
        }
    }

    /** The stdio bus. */
    public static BusAddress stdio() {
        return new BusAddress(STDIO, STDIO);
    }

    /** The in-memory bus: turns come through the gateway only. */
    public static BusAddress inMemory() {
        return new BusAddress(IN_MEMORY, IN_MEMORY);
    }

    /** No bus. */
    public static BusAddress none() {
        return new BusAddress(NONE, NONE);
    }

    /**
     * Parses {@code stdio}, {@code in-memory} (or {@code memory}), {@code none},
     * {@code redis://…}, {@code rediss://…} or {@code kafka://…}.
     *
     * @throws IllegalArgumentException for anything else
     */
    public static BusAddress parse(String value) {
        String v = Objects.requireNonNull(value, "value").strip();
        if (v.equalsIgnoreCase(STDIO)) {
            return stdio();
        }
        if (v.equalsIgnoreCase(IN_MEMORY) || v.equalsIgnoreCase("memory")) {
            return inMemory();
        }
        if (v.equalsIgnoreCase(NONE)) {
            return none();
        }
        int sep = v.indexOf("://");
        String scheme = sep > 0 ? v.substring(0, sep).toLowerCase(Locale.ROOT) : "";
        if ((scheme.equals("redis") || scheme.equals("rediss")) && v.length() > sep + 3) {
            return new BusAddress(REDIS, v);
        }
        if (scheme.equals("kafka") && v.length() > sep + 3) {
            return new BusAddress(KAFKA, v);
        }
        throw new IllegalArgumentException("unknown bus '" + value
                + "' (supported: stdio, in-memory, redis://HOST:PORT, kafka://HOST:PORT)");
    }

    /** The bus a config's {@code bus} section names. */
    static BusAddress of(dev.toolbus.config.Config.Bus b) {
        return switch (b.type()) {
            case "stdio" -> stdio();
            case "redis" -> new BusAddress(REDIS, b.url());
            case "kafka" -> new BusAddress(KAFKA, b.url().contains("://") ? b.url() : "kafka://" + b.url());
            default -> inMemory();
        };
    }
}
