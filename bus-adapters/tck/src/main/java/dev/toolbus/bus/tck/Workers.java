package dev.toolbus.bus.tck;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** Worker JVMs of one test ({@link BusWorkerMain}): started, their output shown, all stopped at the end. */
public final class Workers implements AutoCloseable {

    private final List<Process> started = new ArrayList<>();
    private final Predicate<String> shown;

    /** @param shown which lines of a worker's output after its READY line are printed (with its name) */
    public Workers(Predicate<String> shown) {
        this.shown = shown;
    }

    /** Starts a worker whose bus {@code factory} makes from {@code args}, and waits for its READY line. */
    public Process start(String name, Class<? extends WorkerBus> factory, List<String> args) throws Exception {
        return start(name, BusWorkerMain.class, factory, args);
    }

    /**
     * Starts a worker JVM of this main class (which takes the bus factory's class name, then its arguments,
     * and prints a READY line: {@link BusWorkerMain}, {@link TurnStateWorkerMain}), and waits for its READY line.
     */
    public Process start(String name, Class<?> main, Class<? extends WorkerBus> factory, List<String> args)
            throws Exception {
        List<String> all = new ArrayList<>(List.of(factory.getName()));
        all.addAll(args);
        return startMain(name, main, all);
    }

    /**
     * Starts a JVM running {@code main} (on this test's class path) with these arguments, and waits for the
     * line it prints once ready ({@code READY ...}).
     */
    public Process startMain(String name, Class<?> main, List<String> args) throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(args);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        started.add(p);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null && !line.startsWith("READY")) {
            System.out.println("[" + name + "] " + line);
        }
        if (line == null) {
            throw new IllegalStateException("worker " + name + " ended before it was ready (exit " + p.waitFor() + ")");
        }
        Thread drain = new Thread(() -> {
            try {
                String l;
                while ((l = out.readLine()) != null) {
                    if (shown.test(l)) {
                        System.out.println("[" + name + "] " + l);
                    }
                }
            } catch (Exception ignored) {
                // the process ended
            }
        }, "out-" + name);
        drain.setDaemon(true);
        drain.start();
        return p;
    }

    /** SIGTERM to every worker still running, then SIGKILL to those not gone after 30 s. */
    @Override
    public void close() {
        for (Process p : started) {
            p.destroy();
        }
        for (Process p : started) {
            try {
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
