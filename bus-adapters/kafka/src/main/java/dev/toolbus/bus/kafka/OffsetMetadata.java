package dev.toolbus.bus.kafka;

import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * The metadata of a committed offset: the offsets above the committed position that are already
 * complete, as ranges relative to the position ({@code tb1:0-3,7,9-12}). Bounded in length: what does
 * not fit is left out (those records run again at the next owner, which the caller accounts for).
 */
final class OffsetMetadata {

    private static final String PREFIX = "tb1:";

    private OffsetMetadata() {
    }

    static String encode(long position, NavigableSet<Long> completed, int maxChars) {
        if (completed.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder(PREFIX);
        Long start = null;
        long prev = -2;
        for (long o : completed.tailSet(position, true)) {
            if (start != null && o == prev + 1) {
                prev = o;
                continue;
            }
            if (start != null && !append(sb, start - position, prev - position, maxChars)) {
                return finish(sb);
            }
            start = o;
            prev = o;
        }
        if (start != null) {
            append(sb, start - position, prev - position, maxChars);
        }
        return finish(sb);
    }

    private static boolean append(StringBuilder sb, long from, long to, int maxChars) {
        String part = (sb.length() > PREFIX.length() ? "," : "") + (from == to ? Long.toString(from) : from + "-" + to);
        if (sb.length() + part.length() > maxChars) {
            return false;
        }
        sb.append(part);
        return true;
    }

    private static String finish(StringBuilder sb) {
        return sb.length() == PREFIX.length() ? "" : sb.toString();
    }

    /** The absolute offsets listed; empty for anything not written by {@link #encode}. */
    static NavigableSet<Long> decode(long position, String metadata) {
        NavigableSet<Long> out = new TreeSet<>();
        if (metadata == null || !metadata.startsWith(PREFIX)) {
            return out;
        }
        try {
            for (String part : metadata.substring(PREFIX.length()).split(",")) {
                if (part.isEmpty()) {
                    continue;
                }
                int dash = part.indexOf('-');
                long from = Long.parseLong(dash < 0 ? part : part.substring(0, dash));
                long to = dash < 0 ? from : Long.parseLong(part.substring(dash + 1));
                if (from < 0 || to < from || to - from > 1_000_000) {
                    return new TreeSet<>();
                }
                for (long d = from; d <= to; d++) {
                    out.add(position + d);
                }
            }
        } catch (NumberFormatException e) {
            return new TreeSet<>(); // not ours: run everything again
        }
        return out;
    }
}
