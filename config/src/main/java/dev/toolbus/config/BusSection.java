package dev.toolbus.config;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/** Reads the {@code bus} section. */
final class BusSection {

    private BusSection() {
    }

    static Config.Bus read(ConfigLoader.Reader in, Map<String, Object> root) {
        Map<String, Object> b = in.section(root, "bus", "",
                Set.of("type", "url", "calls", "results", "deadLetter", "group", "consumer", "idempotency", "kafka"));
        String type = in.choice(b, "type", "bus", Config.Bus.TYPES, "in-memory");
        Config.Bus d = Config.Bus.defaults(type);
        return new Config.Bus(type, ConfigLoader.Reader.nonBlank(in.string(b, "url", "bus", d.url()), d.url()),
                ConfigLoader.Reader.nonBlank(in.string(b, "calls", "bus", d.calls()), d.calls()),
                ConfigLoader.Reader.nonBlank(in.string(b, "results", "bus", d.results()), d.results()),
                ConfigLoader.Reader.nonBlank(in.string(b, "deadLetter", "bus", d.deadLetter()), d.deadLetter()),
                ConfigLoader.Reader.nonBlank(in.string(b, "group", "bus", d.group()), d.group()),
                Objects.requireNonNullElse(in.string(b, "consumer", "bus", ""), ""),
                IdempotencySection.read(in, b), KafkaSection.read(in, b));
    }
}
