package dev.toolbus.bus.kafka;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a failed test reports of the test broker's own log segments: per partition of the given topics,
 * its batches in order, as the broker holds them (data ranges and markers, each with producer id and
 * epoch). Only a segment dump shows which transaction's records a marker ended, or that none did.
 * Read with the broker's {@code DumpLogSegments} ({@code TOOLBUS_KAFKA_LIBS}, scripts/services/kafka.sh).
 */
final class LogSegments {

    private static final Pattern BATCH = Pattern.compile(
            "baseOffset: (\\d+) lastOffset: (\\d+) count: \\d+ .*?producerId: (-?\\d+) producerEpoch: (-?\\d+) .*?isControl: (\\w+)");
    private static final Pattern MARKER = Pattern.compile("endTxnMarker: (\\w+)");

    private LogSegments() {
    }

    /** "; log segments: topic-p: d0-91 p5e3, C92 p5e4, ..." for {@code prefix + topic}; "" when they cannot be read. */
    static String batches(String prefix, List<String> topics) {
        String libs = System.getenv("TOOLBUS_KAFKA_LIBS");
        String pidFile = System.getenv("TOOLBUS_KAFKA_PID_FILE");
        if (libs == null || pidFile == null) {
            return "";
        }
        Path data = Path.of(pidFile).getParent().resolve("data");
        StringBuilder out = new StringBuilder("; log segments (d: data, C/A: commit/abort marker, p: producer, e: epoch):");
        for (String topic : topics) {
            for (int p = 0; p < 16; p++) {
                Path dir = data.resolve(prefix + topic + "-" + p);
                if (!Files.isDirectory(dir)) {
                    break;
                }
                out.append("\n  ").append(topic).append('-').append(p).append(": ").append(partition(libs, dir));
            }
        }
        return out.toString();
    }

    private static String partition(String libs, Path dir) {
        List<String> files = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.filter(f -> f.toString().endsWith(".log")).sorted().forEach(f -> files.add(f.toString()));
        } catch (IOException e) {
            return "not listed: " + e;
        }
        if (files.isEmpty()) {
            return "no segment";
        }
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", libs + "/*",
                "org.apache.kafka.tools.DumpLogSegments", "--print-data-log", "--files", String.join(",", files));
        try {
            Process proc = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            byte[] raw = proc.getInputStream().readAllBytes();
            if (!proc.waitFor(30, TimeUnit.SECONDS)) {
                proc.destroyForcibly();
                return "dump timed out";
            }
            return summary(new String(raw, StandardCharsets.ISO_8859_1));
        } catch (IOException e) {
            return "not dumped: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "not dumped: interrupted";
        }
    }

    /** Consecutive data batches of one producer and epoch become one range. */
    static String summary(String dump) {
        List<String> out = new ArrayList<>();
        String runKey = null;
        long runFrom = -1;
        long runTo = -1;
        String[] lines = dump.split("\n");
        for (int i = 0; i < lines.length; i++) {
            Matcher m = BATCH.matcher(lines[i]);
            if (!m.find()) {
                continue;
            }
            String who = "p" + m.group(3) + "e" + m.group(4);
            if (Boolean.parseBoolean(m.group(5))) {
                String type = "?";
                for (int j = i + 1; j < lines.length && !BATCH.matcher(lines[j]).find(); j++) {
                    Matcher t = MARKER.matcher(lines[j]);
                    if (t.find()) {
                        type = t.group(1).substring(0, 1);
                        break;
                    }
                }
                if (runKey != null) {
                    out.add("d" + runFrom + "-" + runTo + " " + runKey);
                    runKey = null;
                }
                out.add(type + m.group(1) + " " + who);
            } else if (who.equals(runKey)) {
                runTo = Long.parseLong(m.group(2));
            } else {
                if (runKey != null) {
                    out.add("d" + runFrom + "-" + runTo + " " + runKey);
                }
                runKey = who;
                runFrom = Long.parseLong(m.group(1));
                runTo = Long.parseLong(m.group(2));
            }
        }
        if (runKey != null) {
            out.add("d" + runFrom + "-" + runTo + " " + runKey);
        }
        return out.isEmpty() ? "empty" : String.join(", ", out);
    }
}
