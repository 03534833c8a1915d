package dev.toolbus.mcp.internal;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Header values of the 2026-07-28 streamable HTTP transport: a value that is not plain visible
 * ASCII (or has leading or trailing space, or looks like the sentinel) travels as
 * {@code =?base64?<Base64 of its UTF-8>?=}; the receiver decodes it before comparing.
 */
public final class HeaderValues {

    private static final String PREFIX = "=?base64?";
    private static final String SUFFIX = "?=";

    private HeaderValues() {
    }

    /** The value as it goes in a header. */
    public static String encode(String value) {
        if (plain(value)) {
            return value;
        }
        return PREFIX + Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8)) + SUFFIX;
    }

    /**
     * The value a header carries: decoded when it is in the sentinel form.
     *
     * @return the value, or {@code null} when the sentinel form is broken (not Base64, not UTF-8)
     */
    public static String decode(String header) {
        if (header == null) {
            return null;
        }
        if (header.length() >= PREFIX.length() + SUFFIX.length() && header.regionMatches(true, 0, PREFIX, 0,
                PREFIX.length()) && header.endsWith(SUFFIX)) {
            String b64 = header.substring(PREFIX.length(), header.length() - SUFFIX.length());
            if (b64.length() % 4 != 0) {
                return null; // padding is required
            }
            try {
                byte[] bytes = Base64.getDecoder().decode(b64);
                var decoder = StandardCharsets.UTF_8.newDecoder();
                return decoder.decode(java.nio.ByteBuffer.wrap(bytes)).toString();
            } catch (IllegalArgumentException | java.nio.charset.CharacterCodingException e) {
                return null;
            }
        }
        return header;
    }

    /** Whether a header may carry the value as it is: visible ASCII and spaces, no space at either end, not the sentinel. */
    public static boolean plain(String value) {
        if (value.isEmpty()) {
            return true;
        }
        if (value.charAt(0) == ' ' || value.charAt(value.length() - 1) == ' ' || value.charAt(0) == '\t'
                || value.charAt(value.length() - 1) == '\t') {
            return false;
        }
        if (value.regionMatches(true, 0, PREFIX, 0, Math.min(PREFIX.length(), value.length()))
                && value.length() >= PREFIX.length()) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                return false;
            }
        }
        return true;
    }

    /** Whether a header value as received holds only characters a header may carry (visible ASCII, space, tab). */
    public static boolean valid(String header) {
        for (int i = 0; i < header.length(); i++) {
            char c = header.charAt(i);
            if ((c < 0x20 && c != '\t') || c > 0x7e) {
                return false;
            }
        }
        return true;
    }
}
