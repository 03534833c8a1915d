package dev.toolbus.benchmarks.stdio;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The smallest honest client of a stdio plugin: one process, requests written as NDJSON lines on the
 * caller's thread, answers read back on the same thread and parsed with Jackson (a client has to look at
 * the answer). No timeouts, no supervision, no restart, no events: the floor of talking to the process.
 * With a window above 1 it pipelines: it keeps {@code window} requests written ahead of the answers.
 */
final class DirectPluginClient implements AutoCloseable {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Process process;
    private final OutputStream stdin;
    private final BufferedReader stdout;
    private final String tool;
    private long nextId = 1;

    DirectPluginClient(Path directory, List<String> command, String tool) throws IOException {
        this.tool = tool;
        this.process = new ProcessBuilder(command).directory(directory.toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        this.stdin = process.getOutputStream();
        this.stdout = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        write("{\"id\":" + nextId++ + ",\"method\":\"activate\",\"params\":{\"pluginId\":\"direct\"}}\n");
        stdin.flush();
        JsonNode activated = MAPPER.readTree(readLine());
        boolean found = false;
        for (JsonNode t : activated.path("tools")) {
            found |= tool.equals(t.path("name").asText());
        }
        if (!found) {
            throw new IllegalStateException("plugin in " + directory + " does not offer " + tool + ": " + activated);
        }
    }

    /** The request line of one call (the arguments as a JSON string, as the protocol wants). */
    private String request(long id, String quotedArgs) {
        return "{\"id\":" + id + ",\"method\":\"execute_tool\",\"params\":{\"toolName\":\"" + tool
                + "\",\"input\":" + quotedArgs + "}}\n";
    }

    /**
     * Runs {@code calls} calls with up to {@code window} written ahead of the answers; returns the last
     * answer's text. Fails on an error answer, a wrong text or an answer out of order.
     */
    String run(int calls, int window, String argsJson, String expected) throws IOException {
        String quoted = MAPPER.writeValueAsString(argsJson);
        long first = nextId;
        long sent = 0;
        String last = null;
        while (sent < Math.min(window, calls)) {
            write(request(nextId++, quoted));
            sent++;
        }
        stdin.flush();
        for (long answered = 0; answered < calls; answered++) {
            JsonNode a = MAPPER.readTree(readLine());
            if (a.path("id").asLong() != first + answered || a.has("error")
                    || !expected.equals(a.path("result").asText())) {
                throw new IllegalStateException("unexpected answer: " + a);
            }
            last = a.path("result").asText();
            if (sent < calls) {
                write(request(nextId++, quoted));
                stdin.flush();
                sent++;
            }
        }
        return last;
    }

    private void write(String line) throws IOException {
        stdin.write(line.getBytes(StandardCharsets.UTF_8));
    }

    private String readLine() throws IOException {
        String line = stdout.readLine();
        if (line == null) {
            throw new IOException("plugin process ended (exit " + (process.isAlive() ? "?" : process.exitValue()) + ")");
        }
        return line;
    }

    @Override
    public void close() throws IOException {
        try {
            stdin.close();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
