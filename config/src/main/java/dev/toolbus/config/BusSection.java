package dev.toolbus.config;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/** Reads the {@code bus} section. */
final class BusSection {

    private BusSection() {
    }

    static BusConfig read(ConfigLoader.Reader in, Map<String, Object> root) {
        Map<String, Object> b = in.section(root, "bus", "",
                Set.of("type", "url", "calls", "results", "deadLetter", "group", "consumer", "idempotency",
                        "redis", "kafka"));
        String type = in.choice(b, "type", "bus", BusConfig.TYPES, "in-memory");
        BusConfig d = BusConfig.defaults(type);
        return BusConfig.builder(type)
                .url(name(in, b, "url", d.url()))
                .calls(name(in, b, "calls", d.calls()))
                .results(name(in, b, "results", d.results()))
                .deadLetter(name(in, b, "deadLetter", d.deadLetter()))
                .group(name(in, b, "group", d.group()))
                .consumer(Objects.requireNonNullElse(in.string(b, "consumer", "bus", ""), ""))
                .idempotency(IdempotencySection.read(in, b))
                .redis(RedisSection.read(in, b))
                .kafka(KafkaSection.read(in, b))
                .build();
    }

    /** A name of the bus: the type's default when missing or blank. */
    private static String name(ConfigLoader.Reader in, Map<String, Object> b, String key, String def) {
        return ConfigLoader.Reader.nonBlank(in.string(b, key, "bus", def), def);
    }
}
