package dev.toolbus.server;

import dev.toolbus.executor.ApprovalSettings;
import java.io.PrintStream;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Option;

/**
 * The approval flags of {@code serve} and {@code mcp}. A flag given replaces the config's value (and keeps replacing
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

    /** The settings these flags give over {@code base}. */
    ApprovalSettings settings(ApprovalSettings base) {
        if (!given()) {
            return base;
        }
        ApprovalSettings.Builder b = base.toBuilder();
        if (mode != null) {
            b.mode(mode);
        }
        if (timeoutMs != null) {
            b.timeoutMs(timeoutMs);
        }
        return b.build();
    }

    /** The flags as an assembly's approval override, or {@code null} when none was given. */
    UnaryOperator<ApprovalSettings> override() {
        return given() ? this::settings : null;
    }

    /** Prints the flags' fallbacks. */
    void printWarnings(PrintStream err) {
        if (given()) {
            for (String w : settings(ApprovalSettings.defaults()).warnings()) {
                err.println("toolbus: warning: approval flag: " + w);
            }
        }
    }
}
