package dev.toolbus.config;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

/**
 * Watches a config file and publishes each new valid config.
 *
 * <p>A {@link WatchService} on the file's directory (so editors that replace the file by renaming
 * are seen) runs on its own daemon thread; when the file is a symbolic link, the directory of the file
 * it resolves to is watched as well, so an edit of the link's target is seen. Changes are debounced:
 * the file is re-read once no event arrived for {@code debounce}.
 *
 * <p>Fails closed: a file that cannot be read, is not valid YAML, is empty, or has a value of the
 * wrong type in a section the tool policy reads ({@link ConfigLoader.Loaded#policyErrors()}) keeps the
 * last good config; the reason is logged and kept in {@link #lastError()}. At start such a file is
 * refused (there is no last good config to keep). A re-read that yields the same config publishes
 * nothing. Close the watcher to stop the thread; {@link #updates()} then completes.
 */
public final class ConfigWatcher implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ConfigWatcher.class);

    /** The default quiet time before a changed file is re-read. */
    public static final Duration DEFAULT_DEBOUNCE = Duration.ofMillis(200);

    private final Path file;
    private final Duration debounce;
    private final Function<String, String> env;
    private final WatchService watch;
    private final Thread thread;
    private final Sinks.Many<ConfigLoader.Loaded> sink = Sinks.many().replay().latest();
    private volatile ConfigLoader.Loaded current;
    private volatile String lastError;
    private volatile boolean closed;

    private ConfigWatcher(Path file, ConfigLoader.Loaded initial, Duration debounce, Function<String, String> env)
            throws IOException {
        this.file = file;
        this.debounce = debounce;
        this.env = env;
        this.current = initial;
        sink.tryEmitNext(initial);
        this.watch = FileSystems.getDefault().newWatchService();
        register(file.getParent());
        Path real = realPath(file);
        if (!real.getParent().equals(file.getParent())) {
            register(real.getParent());
        }
        this.thread = new Thread(this::loop, "toolbus-config-watcher");
        thread.setDaemon(true);
        thread.start();
    }

    private void register(Path dir) throws IOException {
        dir.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                StandardWatchEventKinds.ENTRY_DELETE);
    }

    /** Where the file's links lead (the file itself when it is none, or when they cannot be followed). */
    private static Path realPath(Path file) {
        try {
            return file.toRealPath();
        } catch (IOException e) {
            return file;
        }
    }

    /**
     * Loads the file and starts watching it.
     *
     * @throws ConfigException when the file cannot be loaded at start (there is no last good config
     *     yet), or has policy errors
     */
    public static ConfigWatcher start(Path file) {
        return start(file, DEFAULT_DEBOUNCE, System::getenv);
    }

    /**
     * Loads the file and starts watching it.
     *
     * @param debounce quiet time before a changed file is re-read
     * @param env looks up environment variables
     * @throws ConfigException when the file cannot be loaded at start, or cannot be watched
     */
    public static ConfigWatcher start(Path file, Duration debounce, Function<String, String> env) {
        Path abs = Objects.requireNonNull(file, "file").toAbsolutePath().normalize();
        Objects.requireNonNull(debounce, "debounce");
        ConfigLoader.Loaded initial = ConfigLoader.load(abs, env);
        if (!initial.policyErrors().isEmpty()) {
            throw new ConfigException(abs + ": the tool policy cannot be read as written (fix these, nothing"
                    + " falls back to defaults there): " + String.join("; ", initial.policyErrors()), null);
        }
        try {
            return new ConfigWatcher(abs, initial, debounce, env);
        } catch (IOException e) {
            throw new ConfigException("cannot watch " + abs + ": " + e, e);
        }
    }

    /** The last good config and its warnings. */
    public ConfigLoader.Loaded current() {
        return current;
    }

    /** Why the last re-read was rejected, or {@code null} when it succeeded. */
    public String lastError() {
        return lastError;
    }

    /** The current config, then each new one; completes on {@link #close()}. */
    public Flux<ConfigLoader.Loaded> updates() {
        return sink.asFlux();
    }

    /** The watched file (absolute). */
    public Path file() {
        return file;
    }

    private void loop() {
        long dueNanos = -1;
        try {
            while (!closed) {
                WatchKey key;
                if (dueNanos < 0) {
                    key = watch.take();
                } else {
                    long wait = dueNanos - System.nanoTime();
                    key = wait <= 0 ? null : watch.poll(wait, TimeUnit.NANOSECONDS);
                }
                if (key != null) {
                    boolean relevant = false;
                    Path dir = (Path) key.watchable();
                    // the link and its target (which may change when the link is re-pointed)
                    Path real = realPath(file);
                    for (WatchEvent<?> ev : key.pollEvents()) {
                        if (ev.kind() == StandardWatchEventKinds.OVERFLOW
                                || ev.context() instanceof Path changed && (dir.resolve(changed).equals(file)
                                || dir.resolve(changed).equals(real))) {
                            relevant = true;
                        }
                    }
                    if (!key.reset()) {
                        log.warn("config directory {} is no longer watchable; hot reload stops", dir);
                        if (dir.equals(file.getParent())) {
                            return;
                        }
                    }
                    if (relevant) {
                        dueNanos = System.nanoTime() + debounce.toNanos();
                    }
                } else if (dueNanos >= 0) {
                    dueNanos = -1;
                    reload();
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // closing
        } finally {
            sink.tryEmitComplete();
        }
    }

    /** Re-reads the file now (also called by the watch thread). */
    public synchronized void reload() {
        ConfigLoader.Loaded next;
        try {
            next = ConfigLoader.load(file, env);
        } catch (ConfigException e) {
            lastError = e.getMessage();
            log.warn("config {} not reloaded, keeping the last good config: {}", file, e.getMessage());
            return;
        }
        if (!next.reloadProblems().isEmpty()) {
            lastError = file + ": " + String.join("; ", next.reloadProblems());
            log.warn("config {} not reloaded, keeping the last good config: {}", file, lastError);
            return;
        }
        lastError = null;
        if (next.config().equals(current.config())) {
            return;
        }
        current = next;
        next.warnings().forEach(w -> log.warn("config {}: {}", file.getFileName(), w));
        log.info("config {} reloaded", file);
        sink.tryEmitNext(next);
    }

    @Override
    public void close() {
        closed = true;
        try {
            watch.close();
        } catch (IOException e) {
            log.debug("closing the watch service", e);
        }
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
