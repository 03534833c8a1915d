package dev.toolbus.server;

import dev.toolbus.config.ApprovalSection;
import dev.toolbus.executor.approval.ApprovalSettings;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Option;

/**
 * The approval flags of {@code serve}. A flag given replaces the config's value (and keeps replacing
 * it after a reload); values follow the config's fallback rules, reported as warnings.
 */
final class ApprovalOptions {

    @Option(names = "--approval-mode", paramLabel = "MODE",
            description = "off (no approval step), auto (low risk runs, the rest asks), confirm_all (everything "
                    + "asks), ask (nothing runs); default: off or the config's approval.mode.")
    String mode;

    @Option(names = "--approval-timeout-ms", paramLabel = "MS",
            description = "How long an approval request waits for an answer, at least 1000 (default: "
                    + ApprovalSettings.DEFAULT_TIMEOUT_MS + " or the config's approval.timeoutMs).")
    String timeoutMs;

    /** Whether any flag was given. */
    boolean given() {
        return mode != null || timeoutMs != null;
    }

    /** The settings these flags give over {@code base}, read as the config file's are ({@link ApprovalSection}). */
    ApprovalSettings settings(ApprovalSettings base) {
        return settings(base, new ArrayList<>());
    }

    private ApprovalSettings settings(ApprovalSettings base, List<String> warnings) {
        if (!given()) {
            return base;
        }
        Map<String, Object> given = new LinkedHashMap<>();
        if (mode != null) {
            given.put("mode", mode);
        }
        if (timeoutMs != null) {
            given.put("timeoutMs", timeoutMs);
        }
        return ApprovalSection.read(base, given, warnings);
    }

    /** The flags as an assembly's approval override, or {@code null} when none was given. */
    UnaryOperator<ApprovalSettings> override() {
        return given() ? this::settings : null;
    }

    /** Prints the flags' fallbacks. */
    void printWarnings(PrintStream err) {
        if (given()) {
            List<String> warnings = new ArrayList<>();
            settings(ApprovalSettings.defaults(), warnings);
            for (String w : warnings) {
                err.println("toolbus: warning: approval flag: " + w);
            }
        }
    }
}
