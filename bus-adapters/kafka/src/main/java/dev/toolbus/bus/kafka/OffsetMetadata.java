package dev.toolbus.bus.kafka;

import java.util.HashMap;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * The metadata of a committed offset, relative to the committed position:
 * {@code tb1:0-3,7;h=12;c=1:3,4:2} lists the completed offsets above the position (ranges), the
 * highest offset polled by the owner ({@code h}), and the delivery counts of incomplete records
 * delivered more than once ({@code c}). Bounded in length: completed offsets first, then {@code h},
 * then counts; what does not fit is left out (those records run again at the next owner, or are
 * counted low, which the caller accounts for).
 */
final class OffsetMetadata {

    private static final String PREFIX = "tb1:";

    /**
     * What a commit's metadata says.
     *
     * @param completed absolute offsets above the position already complete
     * @param highestPolled the highest offset the owner polled, or -1
     * @param counts delivery counts (at least 2) of incomplete records
     */
    record State(NavigableSet<Long> completed, long highestPolled, Map<Long, Integer> counts) {
        static State empty() {
            return new State(new TreeSet<>(), -1, new HashMap<>());
        }
    }

    private OffsetMetadata() {
    }

    static String encode(long position, NavigableSet<Long> completed, int maxChars) {
        return encode(position, completed, -1, Map.of(), maxChars);
    }

    static String encode(long position, NavigableSet<Long> completed, long highestPolled, Map<Long, Integer> counts,
                         int maxChars) {
        if (completed.isEmpty() && highestPolled < position && counts.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder(PREFIX);
        int rangesLimit = maxChars - 24;
        Long start = null;
        long prev = -2;
        boolean full = false;
        for (long o : completed.tailSet(position, true)) {
            if (start != null && o == prev + 1) {
                prev = o;
                continue;
            }
            if (start != null && !append(sb, start - position, prev - position, rangesLimit)) {
                full = true;
                break;
            }
            start = o;
            prev = o;
        }
        if (!full && start != null) {
            append(sb, start - position, prev - position, rangesLimit);
        }
        if (highestPolled >= position) {
            sb.append(";h=").append(highestPolled - position);
        }
        boolean first = true;
        for (Map.Entry<Long, Integer> e : new java.util.TreeMap<>(counts).entrySet()) {
            if (e.getKey() < position) {
                continue;
            }
            String part = (first ? ";c=" : ",") + (e.getKey() - position) + ":" + e.getValue();
            if (sb.length() + part.length() > maxChars) {
                break;
            }
            sb.append(part);
            first = false;
        }
        return sb.length() == PREFIX.length() ? "" : sb.toString();
    }

    private static boolean append(StringBuilder sb, long from, long to, int maxChars) {
        String part = (sb.length() > PREFIX.length() ? "," : "") + (from == to ? Long.toString(from) : from + "-" + to);
        if (sb.length() + part.length() > maxChars) {
            return false;
        }
        sb.append(part);
        return true;
    }

    /** The absolute offsets listed as complete; empty for anything not written by {@link #encode}. */
    static NavigableSet<Long> decode(long position, String metadata) {
        return state(position, metadata).completed();
    }

    /** Everything the metadata says; empty for anything not written by {@link #encode}. */
    static State state(long position, String metadata) {
        if (metadata == null || !metadata.startsWith(PREFIX)) {
            return State.empty();
        }
        NavigableSet<Long> out = new TreeSet<>();
        long highest = -1;
        Map<Long, Integer> counts = new HashMap<>();
        try {
            String[] sections = metadata.substring(PREFIX.length()).split(";", -1);
            for (String part : sections[0].split(",")) {
                if (part.isEmpty()) {
                    continue;
                }
                int dash = part.indexOf('-');
                long from = Long.parseLong(dash < 0 ? part : part.substring(0, dash));
                long to = dash < 0 ? from : Long.parseLong(part.substring(dash + 1));
                if (from < 0 || to < from || to - from > 1_000_000) {
                    return State.empty();
                }
                for (long d = from; d <= to; d++) {
                    out.add(position + d);
                }
            }
            for (int i = 1; i < sections.length; i++) {
                String s = sections[i];
                if (s.startsWith("h=")) {
                    highest = position + Long.parseLong(s.substring(2));
                } else if (s.startsWith("c=")) {
                    for (String c : s.substring(2).split(",")) {
                        int colon = c.indexOf(':');
                        counts.put(position + Long.parseLong(c.substring(0, colon)), Integer.parseInt(c.substring(colon + 1)));
                    }
                }
            }
        } catch (RuntimeException e) {
            return State.empty(); // not ours: run everything again
        }
        return new State(out, highest, counts);
    }
}
