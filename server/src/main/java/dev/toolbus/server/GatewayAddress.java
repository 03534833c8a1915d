package dev.toolbus.server;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The value of {@code --gateway}: {@code HOST:PORT}, {@code [IPv6]:PORT}, {@code :PORT} or
 * {@code PORT} (the host is then {@code 127.0.0.1}). Port 0 picks a free port.
 *
 * @param host the bind address
 * @param port the port, 0..65535
 */
record GatewayAddress(String host, int port) {

    static final String DEFAULT_HOST = "127.0.0.1";

    static GatewayAddress parse(String value) {
        String v = value.strip();
        String host;
        String port;
        if (v.startsWith("[")) {
            int close = v.indexOf("]:");
            if (close < 0) {
                throw new IllegalArgumentException("expected [IPv6]:PORT");
            }
            host = v.substring(1, close);
            port = v.substring(close + 2);
        } else {
            int colon = v.lastIndexOf(':');
            host = colon < 0 ? "" : v.substring(0, colon);
            port = colon < 0 ? v : v.substring(colon + 1);
        }
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + port + "' is not a port number");
        }
        if (p < 0 || p > 65535) {
            throw new IllegalArgumentException("port " + p + " is outside 0..65535");
        }
        return new GatewayAddress(host.isBlank() ? DEFAULT_HOST : host, p);
    }

    /** Parses {@code --gateway}; a bad value fails the command line (exit code 2). */
    static final class Converter implements ITypeConverter<GatewayAddress> {
        @Override
        public GatewayAddress convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("bad gateway address '" + value + "': " + e.getMessage()
                        + " (expected HOST:PORT, e.g. 127.0.0.1:8765)");
            }
        }
    }
}
