package dev.toolbus.bus.kafka;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.tool.Param;
import dev.toolbus.tool.Tool;
import dev.toolbus.tool.method.Tools;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;

/**
 * A toolbus instance on Kafka with its turn state in the state topic, run as its own JVM so that a test
 * can kill it (SIGKILL) or stall it (SIGSTOP). Args: bootstrap servers, topic prefix, instance name,
 * {@link KafkaDelivery}, a folder, the session timeout in ms. Its tools append the instance's name to a
 * file of the folder each time they run (so a test counts executions across instances), and while the
 * file {@code hold} exists they wait (so a test can act while a call runs). {@code delete_file} asks for
 * approval. Prints {@code READY <name>} once attached; SIGTERM closes it gracefully.
 */
public final class StateWorkerMain {

    /** The characters of a result the model gets; {@code report}'s text is longer. */
    static final int REPORT_SHOWN = 100;

    private StateWorkerMain() {
    }

    /** The text {@code report} returns: 300 characters, numbered so that any part names its place. */
    static String report() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; sb.length() < 300; i++) {
            sb.append(String.format("part %03d;", i));
        }
        return sb.substring(0, 300);
    }

    public static void main(String[] args) throws Exception {
        String name = args[2];
        Path dir = Path.of(args[4]);
        long session = Long.parseLong(args[5]);
        KafkaBusConfig config = KafkaFixture.configFor(args[0], args[1])
                .clientId(name)
                .delivery(KafkaDelivery.valueOf(args[3]))
                .sessionTimeout(Duration.ofMillis(session))
                .consumerProperty("session.timeout.ms", Long.toString(session))
                .consumerProperty("heartbeat.interval.ms", Long.toString(Math.min(1_000, session / 3)))
                .shutdownTimeout(Duration.ofSeconds(5))
                .build();
        KafkaBus bus = KafkaBus.builder().config(config).build();
        bus.start().block(Duration.ofSeconds(60));
        ToolExecutor executor = ToolExecutor.builder()
                .tools(Tools.fromObject(new CountingTools(name, dir)))
                .approval(ApprovalSettings.builder().mode(ApprovalMode.AUTO).high(List.of("delete_file"))
                        .medium(List.of("rename_file")).bypass(List.of("charge", "lookup", "report"))
                        .timeout(Duration.ofMinutes(2)).build())
                .settings(ExecutionSettings.builder().maxResultChars(REPORT_SHOWN).build())
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            bus.closeGracefully().block(Duration.ofSeconds(30));
            executor.close();
        }));
        executor.attach(bus);
        System.out.println("READY " + name);
        System.out.flush();
        Thread.currentThread().join();
    }

    /** Tools that count their runs in files (one line per run: the instance's name). */
    public static final class CountingTools {
        private final String instance;
        private final Path dir;

        CountingTools(String instance, Path dir) {
            this.instance = instance;
            this.dir = dir;
        }

        @Tool(name = "charge", description = "Charges an account (not safe to repeat).", sideEffecting = true)
        public String charge(@Param(description = "The account.") String account) {
            count("charge-" + account);
            hold();
            return "charged " + account;
        }

        @Tool(name = "lookup", description = "Looks a key up (safe to repeat).")
        public String lookup(@Param(description = "The key.") String key) {
            count("lookup-" + key);
            hold();
            return "found " + key;
        }

        @Tool(name = "report", description = "Returns a long report (safe to repeat).")
        public String report(@Param(description = "The topic.") String topic) {
            count("report-" + topic);
            return StateWorkerMain.report();
        }

        @Tool(name = "rename_file", description = "Renames a file.", sideEffecting = true)
        public String renameFile(@Param(description = "The file.") String path) {
            count("rename-" + path);
            return "renamed " + path;
        }

        @Tool(name = "delete_file", description = "Deletes a file.", sideEffecting = true)
        public String deleteFile(@Param(description = "The file.") String path) {
            count("delete-" + path);
            hold();
            return "deleted " + path;
        }

        private void count(String what) {
            try {
                Files.writeString(dir.resolve(what), instance + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND, StandardOpenOption.SYNC);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Waits while the test holds the calls (at most two minutes). */
        private void hold() {
            long until = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (Files.exists(dir.resolve("hold")) && System.nanoTime() < until) {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
