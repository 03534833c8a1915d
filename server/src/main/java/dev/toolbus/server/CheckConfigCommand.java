package dev.toolbus.server;

import dev.toolbus.assembly.BusAddress;
import dev.toolbus.assembly.Toolbus;
import dev.toolbus.assembly.ToolbusAssembly;
import dev.toolbus.config.Config;
import dev.toolbus.config.ConfigException;
import dev.toolbus.config.ConfigLoader;
import dev.toolbus.policy.ToolPolicies;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code toolbus check-config FILE}: loads the file as {@code serve} would, prints the effective
 * config (every key, secrets masked) on stdout and each warning on stderr. Exit 0 when the file is
 * valid (warnings allowed), 1 when it cannot be read or is not YAML.
 */
@Command(name = "check-config", mixinStandardHelpOptions = true,
        description = "Validate a toolbus.yaml: print the effective config on stdout and every warning on stderr.")
final class CheckConfigCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "FILE", description = "The config file.")
    Path file;

    @Option(names = "--sample-tools",
            description = "Also check the allow lists against the sample tools (entries that match no tool).")
    boolean sampleTools;

    @Option(names = "--plugins", paramLabel = "DIR",
            description = "Also check the allow lists against the tools of these stdio plugins (starts them).")
    Path pluginsDir;

    @Override
    public Integer call() {
        ConfigLoader.Loaded loaded;
        try {
            loaded = ConfigLoader.load(file);
        } catch (ConfigException e) {
            System.err.println("toolbus: " + e.getMessage());
            return 1;
        }
        Config config = loaded.config();
        Set<String> warnings = new LinkedHashSet<>(loaded.warnings());
        warnings.addAll(ToolPolicies.check(config.policy()));
        if (sampleTools || pluginsDir != null) {
            // the file's policy over the tools of the flags only (not the file's own sources)
            ToolbusAssembly.Builder b = ToolbusAssembly.withoutConfig().sampleTools(sampleTools).bus(BusAddress.none())
                    .noGateway().stopStep(Duration.ofSeconds(30));
            if (pluginsDir != null) {
                b.pluginDir(pluginsDir);
            }
            try (Toolbus tools = b.build()) {
                warnings.addAll(ToolPolicies.from(config.policy(), tools.registry()).warnings());
            }
        }
        System.out.print(ConfigLoader.effectiveYaml(config));
        System.out.flush();
        for (String w : warnings) {
            System.err.println("toolbus: warning: " + w);
        }
        if (!loaded.policyErrors().isEmpty()) {
            // serve --config refuses such a file (and a running server keeps its last good one)
            for (String e : loaded.policyErrors()) {
                System.err.println("toolbus: error: " + e);
            }
            System.err.println("toolbus: " + file + " is refused: the tool policy cannot be read as written ("
                    + loaded.policyErrors().size() + (loaded.policyErrors().size() == 1 ? " error)" : " errors)"));
            return 1;
        }
        System.err.println("toolbus: " + file + " is valid (" + warnings.size()
                + (warnings.size() == 1 ? " warning)" : " warnings)"));
        return 0;
    }
}
