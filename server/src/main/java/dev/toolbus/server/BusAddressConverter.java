package dev.toolbus.server;

import dev.toolbus.assembly.BusAddress;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Parses {@code --bus}; an unsupported value fails the command line (exit code 2). */
final class BusAddressConverter implements ITypeConverter<BusAddress> {
    @Override
    public BusAddress convert(String value) {
        try {
            BusAddress a = BusAddress.parse(value);
            if (a.scheme().equals(BusAddress.NONE)) {
                throw new IllegalArgumentException("unknown bus '" + value
                        + "' (supported: stdio, in-memory, redis://HOST:PORT, kafka://HOST:PORT)");
            }
            return a;
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
