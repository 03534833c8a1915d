package dev.toolbus.auth;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** The bind rule of toolbus's servers: without a token, loopback addresses only. */
public final class Hosts {

    private Hosts() {
    }

    /**
     * Whether every address {@code host} names is a loopback address ({@code 127.0.0.0/8}, {@code ::1},
     * {@code localhost}); a name that does not resolve is not.
     */
    public static boolean isLoopback(String host) {
        if (host == null || host.isBlank()) {
            return false;
        }
        String h = host.strip();
        h = h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
        if (h.equalsIgnoreCase("localhost")) {
            return true;
        }
        try {
            InetAddress[] all = InetAddress.getAllByName(h);
            for (InetAddress a : all) {
                if (!a.isLoopbackAddress()) {
                    return false;
                }
            }
            return all.length > 0;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /**
     * Fails when {@code tokens} require none and {@code host} is not loopback.
     *
     * @throws IllegalStateException naming the server and the address
     */
    public static void requireTokenOffLoopback(String server, String host, AccessTokens tokens) {
        if (!tokens.required() && !isLoopback(host)) {
            throw new IllegalStateException("a token is required to serve " + server + " on " + host
                    + ": only loopback addresses may be served without one");
        }
    }
}
