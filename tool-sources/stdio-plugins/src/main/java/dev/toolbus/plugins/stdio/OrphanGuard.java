package dev.toolbus.plugins.stdio;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ties the plugin processes' lifetime to this JVM's, even when the JVM is killed with SIGKILL (no
 * shutdown hook runs then).
 *
 * <p>On a system with {@code setsid} (Linux) every plugin starts as the leader of a new session and
 * process group, so its children share its group id. One watchdog per JVM, a small {@code sh} script in
 * its own session, reads plugin group ids from a pipe whose only writer is this JVM ({@code +pid} when
 * one starts; {@code !pid} once it is stopped: the rest of its group, children it left behind, is
 * killed and the group forgotten). When the JVM dies for any reason the kernel closes the pipe; the
 * watchdog reads end-of-file and kills every group still listed, then exits. A watchdog that died is
 * started again at the next plugin start and told every group still watched. Without
 * {@code setsid} plugins start as plain children and only the shutdown hook and
 * {@link StdioPluginHost#closeGracefully()} stop them.
 */
final class OrphanGuard {

    private static final Logger log = LoggerFactory.getLogger(OrphanGuard.class);
    private static final String SCRIPT = String.join("\n",
            "trap '' INT TERM HUP",
            "groups=''",
            "while IFS= read -r line; do",
            "  case \"$line\" in",
            "    +*) groups=\"$groups ${line#+}\" ;;",
            "    -*|!*) g=${line#?}; [ \"${line%\"${line#?}\"}\" = '!' ] && kill -KILL \"-$g\" 2>/dev/null",
            "      keep=''; for h in $groups; do [ \"$h\" = \"$g\" ] || keep=\"$keep $h\"; done; groups=$keep ;;",
            "  esac",
            "done",
            "for g in $groups; do kill -KILL \"-$g\" 2>/dev/null; kill -KILL \"$g\" 2>/dev/null; done",
            "exit 0");
    private static final String SETSID = find("setsid");
    private static final java.util.Set<Long> WATCHED = new java.util.LinkedHashSet<>();
    private static OrphanGuard instance;

    private final Process watchdog;
    private final OutputStream pipe;

    private OrphanGuard(Process watchdog) {
        this.watchdog = watchdog;
        this.pipe = watchdog.getOutputStream();
    }

    /** Whether plugins are started in their own process group and watched. */
    static boolean available() {
        return SETSID != null;
    }

    /** The command line that starts {@code command} as the leader of a new session, when possible. */
    static List<String> wrap(List<String> command) {
        if (SETSID == null) {
            return command;
        }
        List<String> out = new ArrayList<>(command.size() + 1);
        out.add(SETSID);
        out.addAll(command);
        return out;
    }

    /** Lists a started plugin's process group with the watchdog (starting the watchdog the first time). */
    static void watch(long pid) {
        OrphanGuard g;
        synchronized (OrphanGuard.class) {
            if (SETSID == null) {
                return;
            }
            WATCHED.add(pid);
            g = get();
        }
        if (g != null) {
            g.send("+" + pid);
        }
    }

    /** The plugin leading group {@code pid} was stopped: kill what is left of its group, and forget it. */
    static void release(long pid) {
        OrphanGuard g;
        synchronized (OrphanGuard.class) {
            if (!WATCHED.remove(pid)) {
                return;
            }
            g = instance;
        }
        if (g != null) {
            g.send("!" + pid);
        }
    }

    /** The watchdog's pid, or -1 (for tests). */
    static long watchdogPid() {
        synchronized (OrphanGuard.class) {
            return instance != null && instance.watchdog.isAlive() ? instance.watchdog.pid() : -1;
        }
    }

    private static synchronized OrphanGuard get() {
        if (SETSID == null) {
            return null;
        }
        if (instance != null && instance.watchdog.isAlive()) {
            return instance;
        }
        try {
            Process p = new ProcessBuilder(SETSID, "sh", "-c", SCRIPT)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            instance = new OrphanGuard(p);
            log.debug("plugin watchdog started as pid {}", p.pid());
            for (Long pid : WATCHED) {
                instance.send("+" + pid);
            }
            return instance;
        } catch (IOException e) {
            log.warn("cannot start the plugin watchdog (plugins may outlive a killed server): {}", e.getMessage());
            return null;
        }
    }

    private synchronized void send(String line) {
        try {
            pipe.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
            pipe.flush();
        } catch (IOException e) {
            log.debug("plugin watchdog is gone: {}", e.getMessage());
        }
    }

    /**
     * Why {@code program} cannot be run (not found on {@code path}, or not executable), or {@code null}
     * when it can. A program given as a path is resolved against {@code dir}.
     */
    static String missingProgram(String program, Path dir, String path) {
        if (program.contains("/")) {
            Path p = dir.resolve(program);
            return Files.isExecutable(p) && !Files.isDirectory(p) ? null : "no executable file " + p;
        }
        for (String d : (path == null ? "" : path).split(java.io.File.pathSeparator)) {
            Path p = (d.isEmpty() ? dir : dir.resolve(d)).resolve(program);
            if (Files.isExecutable(p) && !Files.isDirectory(p)) {
                return null;
            }
        }
        return "'" + program + "' is not on the PATH";
    }

    private static String find(String program) {
        String path = System.getenv("PATH");
        if (path == null || System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("win")) {
            return null;
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, program);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }
}
