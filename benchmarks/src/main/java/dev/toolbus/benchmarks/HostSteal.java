package dev.toolbus.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The time the hypervisor took from this machine's CPUs, from the first line of {@code /proc/stat}: its
 * {@code steal} column and the sum of the columns up to it, in clock ticks. On a shared virtual machine a run
 * whose CPUs were taken is slower for a reason outside the code measured (docs/benchmarks.md, "Performance,
 * eighth pass"): the load harnesses measure such a run again.
 */
public record HostSteal(long steal, long total) {

    /** A run during which the hypervisor took more than this share of the machine's time is measured again. */
    public static final double MAX_SHARE = 0.02;

    private static final Path STAT = Path.of("/proc/stat");

    /** The counters now; {@code null} where the platform has no {@code /proc/stat} or it cannot be read. */
    public static HostSteal now() {
        try {
            String line = Files.readAllLines(STAT).get(0);
            String[] f = line.trim().split("\\s+");
            if (!f[0].equals("cpu") || f.length < 9) {
                return null;
            }
            long total = 0;
            // user, nice, system, idle, iowait, irq, softirq, steal (guest time is counted in user already)
            for (int i = 1; i <= 8; i++) {
                total += Long.parseLong(f[i]);
            }
            return new HostSteal(Long.parseLong(f[8]), total);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The share of the machine's time stolen between {@code before} and {@code after}; 0 when either is unknown. */
    public static double share(HostSteal before, HostSteal after) {
        if (before == null || after == null || after.total <= before.total) {
            return 0;
        }
        return (double) (after.steal - before.steal) / (after.total - before.total);
    }
}
