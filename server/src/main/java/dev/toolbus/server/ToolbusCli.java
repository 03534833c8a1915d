package dev.toolbus.server;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The {@code toolbus} command. Exit codes: 0 done, 1 failure at run time, 2 bad command line.
 * While a command runs, stdout carries only protocol events; logs, warnings and usage errors go to
 * stderr. Only {@code --help} and {@code --version} print to stdout.
 */
@Command(name = "toolbus",
        mixinStandardHelpOptions = true,
        versionProvider = ToolbusCli.Version.class,
        description = "Executes LLM tool calls arriving on a message bus.",
        subcommands = {ServeCommand.class, McpCommand.class, CallCommand.class, ToolsCommand.class, CheckConfigCommand.class,
                DemoCommand.class, HelpCommand.class})
public final class ToolbusCli implements Runnable {

    @Option(names = "--log-level", paramLabel = "LEVEL", scope = ScopeType.INHERIT,
            defaultValue = LogSetup.DEFAULT_LEVEL,
            description = "trace, debug, info, warn, error or off; logs go to stderr (default: ${DEFAULT-VALUE}).")
    LogLevel logLevel;

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing command: serve, mcp, call, tools, check-config or demo");
    }

    public static void main(String[] args) {
        LogSetup.apply(args);
        System.exit(execute(args));
    }

    /** Runs the command line and returns its exit code (for tests; does not exit). */
    public static int execute(String... args) {
        return commandLine().execute(args);
    }

    /** The configured picocli command line: help and version on stdout, usage errors on stderr. */
    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new ToolbusCli());
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setErr(new PrintWriter(System.err, true));
        return cl;
    }

    /** The version from the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = ToolbusCli.class.getPackage().getImplementationVersion();
            return new String[] {"toolbus " + (v == null ? "(development build)" : v)};
        }
    }
}
