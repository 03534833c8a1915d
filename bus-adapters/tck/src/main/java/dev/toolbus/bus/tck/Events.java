package dev.toolbus.bus.tck;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.Json;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reading the events buses write, as the suites look at them. */
public final class Events {

    private static final Pattern NUMBERED_TURN = Pattern.compile("\"turn_id\":\"t(\\d+)\"");

    private Events() {
    }

    /** The event's JSON tree. */
    public static JsonNode json(String event) {
        try {
            return Json.mapper().readTree(event);
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + event, e);
        }
    }

    /** The events' {@code type}s, in order. */
    public static List<String> types(List<JsonNode> events) {
        return events.stream().map(e -> e.path("type").asText()).toList();
    }

    /** A {@code turn_completed} event. */
    public static boolean isCompleted(String event) {
        return event.contains("\"turn_completed\"");
    }

    /** An event a bus wrote again for a repeated turn ({@code "replayed":true} first). */
    public static boolean isReplayed(String event) {
        return event.startsWith("{\"replayed\":true");
    }

    /** The event with {@code "replayed":true} put first, as a bus replays it. */
    public static String replayed(String event) {
        return "{\"replayed\":true," + event.substring(1);
    }

    /** The number {@code n} of a turn id {@code t<n>}. */
    public static int turnNumber(String event) {
        Matcher m = NUMBERED_TURN.matcher(event);
        if (!m.find()) {
            throw new AssertionError("no numbered turn_id in " + event);
        }
        return Integer.parseInt(m.group(1));
    }

    /**
     * Per conversation, the turn numbers of its {@code turn_completed} events in the order written;
     * replayed ones are left out unless asked for.
     */
    public static Map<String, List<Integer>> completedTurns(Map<String, List<String>> byStream, boolean withReplays) {
        Map<String, List<Integer>> out = new HashMap<>();
        byStream.forEach((stream, events) -> {
            List<Integer> turns = new ArrayList<>();
            for (String e : events) {
                if (isCompleted(e) && (withReplays || !isReplayed(e))) {
                    turns.add(turnNumber(e));
                }
            }
            if (!turns.isEmpty()) {
                out.put(stream, turns);
            }
        });
        return out;
    }

    /** How many turns were completed, each counted once. */
    public static long distinct(Map<String, List<Integer>> completed) {
        return completed.values().stream().mapToLong(l -> new LinkedHashSet<>(l).size()).sum();
    }

    /** How many turn_completed events there are in all. */
    public static long total(Map<String, List<Integer>> completed) {
        return completed.values().stream().mapToLong(List::size).sum();
    }

    /** Stream ids {@code s0 … s<n-1>}. */
    public static List<String> streams(int n) {
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add("s" + i);
        }
        return out;
    }
}
