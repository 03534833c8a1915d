package dev.toolbus.benchmarks.load;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The consumer processes of one scenario, each a JVM of its own with the same heap settings: either
 * {@code toolbus serve} from the server jar, or a raw client loop from this module's classpath. Output
 * goes to one log file per process.
 */
final class Workers implements AutoCloseable {

    private final List<Process> processes = new ArrayList<>();

    static Workers start(List<List<String>> commands, List<Path> logs) throws IOException {
        Workers w = new Workers();
        for (int i = 0; i < commands.size(); i++) {
            ProcessBuilder pb = new ProcessBuilder(commands.get(i)).redirectErrorStream(true)
                    .redirectOutput(logs.get(i).toFile());
            w.processes.add(pb.start());
        }
        return w;
    }

    static String java() {
        return System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    }

    /** CPU time used so far by all the processes, in nanoseconds. */
    long cpuNanos() {
        long sum = 0;
        for (Process p : processes) {
            sum += p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
        }
        return sum;
    }

    /**
     * CPU time the JIT compiler threads of all the processes used so far, in nanoseconds, read from
     * {@code /proc/<pid>/task/<tid>/stat} (0 where there is no {@code /proc}). A compiler thread that
     * ended takes its time with it, so a difference can come out low, never high.
     */
    long jitNanos() {
        return threadNanos(comm -> comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler"));
    }

    /**
     * CPU time the collector's threads of all the processes used so far ({@code GC Thread#n} and G1's
     * {@code G1 ...} threads), in nanoseconds, as {@link #jitNanos}.
     */
    long gcNanos() {
        return threadNanos(comm -> comm.startsWith("GC Thread") || comm.startsWith("G1 "));
    }

    /** CPU time of the threads whose name (as {@code /proc} has it, 15 characters at most) {@code which} takes. */
    private long threadNanos(java.util.function.Predicate<String> which) {
        long ticks = 0;
        for (Process p : processes) {
            java.io.File[] tasks = new java.io.File("/proc/" + p.pid() + "/task").listFiles();
            if (tasks == null) {
                continue;
            }
            for (java.io.File task : tasks) {
                try {
                    String stat = java.nio.file.Files.readString(task.toPath().resolve("stat"));
                    int open = stat.indexOf('(');
                    int close = stat.lastIndexOf(')');
                    String comm = stat.substring(open + 1, close);
                    if (which.test(comm)) {
                        // after the name: state is field 3, utime and stime are fields 14 and 15
                        String[] f = stat.substring(close + 2).split(" ");
                        ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
                    }
                } catch (IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            }
        }
        return ticks * 10_000_000L; // USER_HZ is 100 on Linux
    }

    /**
     * The Kafka clients' own counters, summed over the processes (read over JMX, attaching to each
     * process once): {@code fetches} and {@code records} of the consumers, {@code produce requests} and
     * {@code records sent} of the producers. Empty where a process has no Kafka client or cannot be
     * attached to. What a phase's difference says: how many records a fetch and a produce request
     * carried, which moves the clients' CPU per turn.
     */
    java.util.Map<String, Double> kafkaCounters() {
        java.util.Map<String, Double> sum = new java.util.TreeMap<>();
        for (Process p : processes) {
            javax.management.MBeanServerConnection c = jmx(p);
            if (c == null) {
                continue;
            }
            add(sum, "fetches", c, "kafka.consumer:type=consumer-fetch-manager-metrics,client-id=*", "fetch-total");
            add(sum, "records", c, "kafka.consumer:type=consumer-fetch-manager-metrics,client-id=*", "records-consumed-total");
            add(sum, "produce requests", c, "kafka.producer:type=producer-metrics,client-id=*", "request-total");
            add(sum, "records sent", c, "kafka.producer:type=producer-metrics,client-id=*", "record-send-total");
        }
        return sum;
    }

    private final java.util.Map<Long, javax.management.remote.JMXConnector> jmx = new java.util.HashMap<>();

    private javax.management.MBeanServerConnection jmx(Process p) {
        try {
            javax.management.remote.JMXConnector c = jmx.get(p.pid());
            if (c == null) {
                com.sun.tools.attach.VirtualMachine vm = com.sun.tools.attach.VirtualMachine.attach(Long.toString(p.pid()));
                try {
                    String address = vm.startLocalManagementAgent();
                    c = javax.management.remote.JMXConnectorFactory.connect(new javax.management.remote.JMXServiceURL(address));
                } finally {
                    vm.detach();
                }
                jmx.put(p.pid(), c);
            }
            return c.getMBeanServerConnection();
        } catch (Exception | LinkageError e) {
            return null;
        }
    }

    private static void add(java.util.Map<String, Double> sum, String key, javax.management.MBeanServerConnection c,
                            String pattern, String attribute) {
        try {
            for (javax.management.ObjectName n : c.queryNames(new javax.management.ObjectName(pattern), null)) {
                Object v = c.getAttribute(n, attribute);
                if (v instanceof Number num && !Double.isNaN(num.doubleValue())) {
                    sum.merge(key, num.doubleValue(), Double::sum);
                }
            }
        } catch (Exception e) {
            // no such client in this process
        }
    }

    /** Throws if a process ended on its own. */
    void checkAlive() {
        for (Process p : processes) {
            if (!p.isAlive()) {
                throw new IllegalStateException("worker " + p.pid() + " exited with " + p.exitValue());
            }
        }
    }

    /** SIGTERM to all (each drains and exits), then SIGKILL to any still running after 30 s. */
    @Override
    public void close() throws InterruptedException {
        for (javax.management.remote.JMXConnector c : jmx.values()) {
            try {
                c.close();
            } catch (IOException | RuntimeException e) {
                // the process is going anyway
            }
        }
        for (Process p : processes) {
            p.destroy();
        }
        for (Process p : processes) {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                System.err.println("worker " + p.pid() + " did not stop within 30 s; killing it");
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
