package dev.toolbus.benchmarks.scale;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * One-call {@code echo} turns written to a sidecar's standard input, at most {@link #WINDOW} unanswered,
 * their {@code turn_completed} lines counted on its standard output. The caller measures the server
 * between {@link #send} calls, when every turn sent so far has completed.
 */
final class SidecarFlood {

    static final int WINDOW = 256;

    private final ServeProcess serve;
    private final BufferedWriter in;
    private final Semaphore window = new Semaphore(WINDOW);
    private final AtomicInteger completed = new AtomicInteger();
    private final AtomicInteger errors = new AtomicInteger();
    private final Thread reader;
    private int sent;

    SidecarFlood(ServeProcess serve) {
        this.serve = serve;
        this.in = new BufferedWriter(new OutputStreamWriter(serve.process.getOutputStream(), StandardCharsets.UTF_8),
                1 << 16);
        this.reader = new Thread(this::read, "sidecar-reader");
        reader.setDaemon(true);
        reader.start();
    }

    private void read() {
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(serve.process.getInputStream(), StandardCharsets.UTF_8), 1 << 16)) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.contains("\"type\":\"turn_completed\"")) {
                    if (!line.contains("\"error_count\":0")) {
                        errors.incrementAndGet();
                    }
                    completed.incrementAndGet();
                    window.release();
                } else if (line.contains("\"type\":\"error\"")) {
                    errors.incrementAndGet();
                }
            }
        } catch (IOException e) {
            errors.incrementAndGet();
        }
    }

    /** Sends {@code count} turns, stream of turn {@code i} from {@code streams}, and waits for all of them. */
    void send(int count, IntFunction<String> streams) throws IOException, InterruptedException {
        for (int k = 0; k < count; k++) {
            if (!window.tryAcquire()) {
                in.flush();
                window.acquire();
            }
            int i = sent++;
            in.write("{\"type\":\"tool_calls\",\"stream_id\":\"" + streams.apply(i) + "\",\"turn_id\":\"t" + i
                    + "\",\"calls\":[{\"tool_call_id\":\"c" + i + "\",\"name\":\"echo\",\"arguments\":{\"text\":\"flood "
                    + i + "\"}}]}\n");
        }
        in.flush();
        window.acquire(WINDOW);
        window.release(WINDOW);
    }

    int completed() {
        return completed.get();
    }

    int errors() {
        return errors.get();
    }
}
