package dev.toolbus.benchmarks.scale;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The memory of another JVM: its live set (the bytes {@code jcmd GC.class_histogram} counts, which runs
 * a full collection first, so only reachable objects remain) and its resident set size.
 */
final class LiveHeap {

    private LiveHeap() {
    }

    /** Bytes of live objects in process {@code pid}, after a full collection. */
    static long liveBytes(long pid) {
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        try {
            Process p = new ProcessBuilder(jcmd, Long.toString(pid), "GC.class_histogram")
                    .redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("jcmd GC.class_histogram failed for " + pid);
            }
            return total(new String(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("jcmd could not run: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** The bytes column of the histogram's {@code Total} line. */
    static long total(String histogram) {
        for (String line : histogram.split("\n")) {
            String t = line.strip();
            if (t.startsWith("Total")) {
                String[] cols = t.split("\\s+");
                return Long.parseLong(cols[cols.length - 1]);
            }
        }
        throw new IllegalStateException("no Total line in the class histogram");
    }

    /** Resident set size of {@code pid} in bytes, 0 when /proc does not say. */
    static long rss(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException e) {
            return 0;
        }
        return 0;
    }
}
