package dev.toolbus.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads {@code bus.kafka}: the consumer's session timeout and heartbeat (how soon a dead instance's turns
 * move), the sweep for hanging transactions and kafka-clients settings by their Kafka names. A client
 * setting may be written flat ({@code consumer: {max.poll.interval.ms: 600000}}) or nested, as Spring
 * properties and environment variables split it ({@code consumer.max.poll.interval.ms}); both become
 * {@code max.poll.interval.ms}.
 * The bus refuses the settings its guarantees rest on (offsets, isolation, transactions), so a bus with
 * one of them does not start.
 */
final class KafkaSection {

    static final String PATH = "bus.kafka";
    static final long MAX_SESSION_MS = KafkaConfig.MAX_TIMING_MS;
    static final int MAX_PROPERTIES = KafkaConfig.MAX_PROPERTIES;

    private KafkaSection() {
    }

    static KafkaConfig read(ConfigLoader.Reader in, Map<String, Object> bus) {
        Map<String, Object> m = in.section(bus, "kafka", "bus",
                Set.of("sessionTimeoutMs", "heartbeatIntervalMs", "hangingTransactionSweepMs", "consumer", "producer",
                        "admin", "turnState", "stateTopic"));
        long session = timing(in, m, "sessionTimeoutMs", KafkaConfig.MIN_SESSION_MS);
        long heartbeat = timing(in, m, "heartbeatIntervalMs", KafkaConfig.MIN_HEARTBEAT_MS);
        if (session > 0 && heartbeat >= session) {
            in.warn(PATH + ".heartbeatIntervalMs", heartbeat + " is not below sessionTimeoutMs " + session
                    + "; using a third of it");
            heartbeat = 0;
        }
        return KafkaConfig.builder().sessionTimeoutMs(session).heartbeatIntervalMs(heartbeat)
                .hangingTransactionSweepMs(sweep(in, m))
                .consumer(clientSettings(in, m, "consumer")).producer(clientSettings(in, m, "producer"))
                .admin(clientSettings(in, m, "admin")).turnState(in.bool(m, "turnState", PATH, true))
                .stateTopic(ConfigLoader.Reader.nonBlank(in.string(m, "stateTopic", PATH, ""), "")).build();
    }

    /** Milliseconds: 0 (Kafka's default), else at least {@code min} (clamped, warned), at most 30 min. */
    private static long timing(ConfigLoader.Reader in, Map<String, Object> m, String key, long min) {
        return timing(in, m, key, min, 0);
    }

    private static long timing(ConfigLoader.Reader in, Map<String, Object> m, String key, long min, long def) {
        long v = in.integer(m, key, PATH, def, 0, MAX_SESSION_MS);
        if (v > 0 && v < min) {
            in.warn(PATH + "." + key, v + " is below " + min + "; using " + min);
            return min;
        }
        return v;
    }

    /**
     * {@code hangingTransactionSweepMs}: 0 (off), else at least 1 s (clamped, warned), at most 30 min; absent:
     * the bus's default ({@link KafkaConfig#BUS_DEFAULT}). Empty, negative or not an integer: the bus's default
     * too (warned), not 0, which would turn the sweep off.
     */
    private static long sweep(ConfigLoader.Reader in, Map<String, Object> m) {
        String key = "hangingTransactionSweepMs";
        Object v = m.get(key);
        Double d = LooseNumbers.number(v);
        if (m.containsKey(key) && (d == null || d < 0 || d != Math.rint(d))) {
            (v == null ? (ConfigLoader.Warn) in::warn : (ConfigLoader.Warn) in::fallback).emit(PATH + "." + key,
                    (v == null ? "is empty" : ConfigLoader.Reader.describe(v)
                            + (d != null && d < 0 ? " is negative" : " is not an integer")) + "; using the bus's default");
            return KafkaConfig.BUS_DEFAULT;
        }
        return timing(in, m, key, KafkaConfig.MIN_SWEEP_MS, KafkaConfig.BUS_DEFAULT);
    }

    /** A map of kafka-clients settings, flattened to dotted names, values as text. */
    private static Map<String, String> clientSettings(ConfigLoader.Reader in, Map<String, Object> kafka, String key) {
        Map<String, Object> m = in.section(kafka, key, PATH, null);
        Map<String, String> out = new LinkedHashMap<>();
        flatten(in, PATH + "." + key, "", m, out);
        if (out.size() > MAX_PROPERTIES) {
            in.fallback(PATH + "." + key, out.size() + " settings are more than " + MAX_PROPERTIES + "; none used");
            return Map.of();
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static void flatten(ConfigLoader.Reader in, String path, String prefix, Map<String, Object> m,
                                Map<String, String> out) {
        for (Map.Entry<String, Object> e : m.entrySet()) {
            String name = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
            Object v = e.getValue();
            if (name.isBlank()) {
                in.warn(path, "has an empty setting name; ignored");
            } else if (v instanceof Map<?, ?> nested) {
                flatten(in, path, name, (Map<String, Object>) nested, out);
            } else if (v instanceof List<?> list) {
                // Kafka's list settings are comma-separated
                out.put(name.toLowerCase(Locale.ROOT), String.join(",", list.stream().map(String::valueOf).toList()));
            } else if (v == null) {
                in.warn(path + "." + name, "is empty; ignored");
            } else {
                out.put(name.toLowerCase(Locale.ROOT), String.valueOf(v));
            }
        }
    }

    /** The section as the effective config prints it; values of secret settings masked. */
    static Map<String, Object> effective(KafkaConfig k) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sessionTimeoutMs", k.sessionTimeoutMs());
        m.put("heartbeatIntervalMs", k.heartbeatIntervalMs());
        if (k.hangingTransactionSweepMs() != KafkaConfig.BUS_DEFAULT) {
            // only a set one: absent is the bus's default
            m.put("hangingTransactionSweepMs", k.hangingTransactionSweepMs());
        }
        m.put("consumer", masked(k.consumer()));
        m.put("producer", masked(k.producer()));
        m.put("admin", masked(k.admin()));
        m.put("turnState", k.turnState());
        m.put("stateTopic", k.stateTopic());
        return m;
    }

    private static Map<String, Object> masked(Map<String, String> settings) {
        Map<String, Object> out = new LinkedHashMap<>();
        settings.forEach((k, v) -> out.put(k, secret(k) ? "***" : v));
        return out;
    }

    /** Kafka's password-type settings (JAAS config, key and store passwords, keys). */
    static boolean secret(String name) {
        return name.contains("password") || name.contains("jaas") || name.contains("secret")
                || name.endsWith(".key") || name.contains("token");
    }
}
