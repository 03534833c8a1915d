package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.executor.approval.ApprovalSettings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ApprovalOptionsTest {

    private static ApprovalOptions flags(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "serve";
        System.arraycopy(args, 0, all, 1, args.length);
        CommandLine.ParseResult parsed = ToolbusCli.commandLine().parseArgs(all);
        return ((ServeCommand) parsed.subcommand().commandSpec().userObject()).approval;
    }

    @Test
    void noFlagsLeaveTheConfigAlone() {
        ApprovalOptions o = flags();
        ApprovalSettings base = ApprovalSettings.builder().mode(ApprovalMode.AUTO).build();
        assertThat(o.given()).isFalse();
        assertThat(o.settings(base)).isSameAs(base);
        assertThat(o.override()).as("no override: the assembly keeps the live settings").isNull();
    }

    @Test
    void flagsReplaceModeAndTimeoutAndKeepTheRestOfTheConfig() {
        ApprovalOptions o = flags("--approval-mode", "confirm_all", "--approval-timeout-ms", "2500");
        ApprovalSettings s = o.settings(ApprovalSettings.builder().mode(ApprovalMode.AUTO).high(List.of("wipe")).build());
        assertThat(s.mode()).isEqualTo(ApprovalMode.CONFIRM_ALL);
        assertThat(s.timeout().toMillis()).isEqualTo(2_500);
        assertThat(s.high()).containsExactly("wipe");
    }

    @Test
    void theFlagsOverrideAnyBase() {
        ApprovalOptions o = flags("--approval-mode", "ask");
        ApprovalSettings s = o.override().apply(ApprovalSettings.builder().mode(ApprovalMode.AUTO).bypass(List.of("echo")).build());
        assertThat(s.mode()).as("the flag wins over the config").isEqualTo(ApprovalMode.ASK);
        assertThat(s.bypass()).containsExactly("echo");
    }

    @Test
    void badFlagsFallBackWithAWarning() {
        ApprovalOptions o = flags("--approval-mode", "yolo", "--approval-timeout-ms", "soon");
        ApprovalSettings s = o.settings(ApprovalSettings.defaults());
        assertThat(s.mode()).isEqualTo(ApprovalMode.OFF);
        assertThat(s.timeout().toMillis()).isEqualTo(60_000);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        o.printWarnings(new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(err.toString(StandardCharsets.UTF_8)).contains(
                "toolbus: warning: approval flag: mode 'yolo' is not off, auto, confirm_all or ask; using off",
                "toolbus: warning: approval flag: timeoutMs 'soon' is not a number; using 60000");
    }
}
