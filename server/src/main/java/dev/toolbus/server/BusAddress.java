package dev.toolbus.server;

import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The value of {@code --bus}: which bus {@code serve} runs on. Only {@code stdio} exists now; broker
 * URLs ({@code redis://}, {@code kafka://}) are recognised and refused with a clear message until
 * their adapters land.
 *
 * @param scheme the bus kind, lower case
 * @param address the full value as given
 */
record BusAddress(String scheme, String address) {

    static final String STDIO = "stdio";

    /** Parses {@code --bus}; an unsupported value fails the command line (exit code 2). */
    static final class Converter implements ITypeConverter<BusAddress> {
        @Override
        public BusAddress convert(String value) {
            String v = value.strip();
            if (v.equalsIgnoreCase(STDIO)) {
                return new BusAddress(STDIO, v);
            }
            int sep = v.indexOf("://");
            String scheme = sep > 0 ? v.substring(0, sep).toLowerCase(Locale.ROOT) : "";
            if (scheme.equals("redis") || scheme.equals("rediss") || scheme.equals("kafka")) {
                throw new TypeConversionException("bus '" + value + "': " + scheme
                        + " is not available in this build yet (supported: stdio)");
            }
            throw new TypeConversionException("unknown bus '" + value + "' (supported: stdio)");
        }
    }
}
