package dev.toolbus.server;

import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The value of {@code --bus}: which bus {@code serve} runs on: {@code stdio}, {@code in-memory} (the
 * gateway alone feeds the executor), {@code redis://HOST:PORT}
 * (or {@code rediss://}) or {@code kafka://HOST:PORT[,HOST:PORT]}.
 *
 * @param scheme the bus kind, lower case
 * @param address the full value as given
 */
record BusAddress(String scheme, String address) {

    static final String STDIO = "stdio";
    static final String IN_MEMORY = "in-memory";
    static final String REDIS = "redis";
    static final String KAFKA = "kafka";

    static BusAddress stdio() {
        return new BusAddress(STDIO, STDIO);
    }

    /** No input of its own: turns come through the gateway only. */
    static BusAddress inMemory() {
        return new BusAddress(IN_MEMORY, IN_MEMORY);
    }

    /** Parses {@code --bus}; an unsupported value fails the command line (exit code 2). */
    static final class Converter implements ITypeConverter<BusAddress> {
        @Override
        public BusAddress convert(String value) {
            String v = value.strip();
            if (v.equalsIgnoreCase(STDIO)) {
                return new BusAddress(STDIO, v);
            }
            if (v.equalsIgnoreCase(IN_MEMORY) || v.equalsIgnoreCase("memory")) {
                return inMemory();
            }
            int sep = v.indexOf("://");
            String scheme = sep > 0 ? v.substring(0, sep).toLowerCase(Locale.ROOT) : "";
            if ((scheme.equals("redis") || scheme.equals("rediss")) && v.length() > sep + 3) {
                return new BusAddress(REDIS, v);
            }
            if (scheme.equals("kafka") && v.length() > sep + 3) {
                return new BusAddress(KAFKA, v);
            }
            throw new TypeConversionException("unknown bus '" + value
                    + "' (supported: stdio, in-memory, redis://HOST:PORT, kafka://HOST:PORT)");
        }
    }
}
