package dev.toolbus.server;

import dev.toolbus.config.Config;
import dev.toolbus.config.ConfigException;
import dev.toolbus.config.ConfigWatcher;
import java.nio.file.Path;

/** The {@code --config FILE} of a long-running command: loaded, its warnings printed, watched while the command runs. */
final class WatchedConfig {

    /** What a command does with the file's config ({@code null} without a file) and its watcher. */
    interface Body {
        int run(Config fileConfig, ConfigWatcher watcher);
    }

    private WatchedConfig() {
    }

    /**
     * Runs {@code body} with the config of {@code file} (or none when {@code file} is null) and closes
     * the watcher after it; an unreadable file is reported on stderr and gives exit code 1.
     */
    static int run(Path file, Body body) {
        if (file == null) {
            return body.run(null, null);
        }
        ConfigWatcher watcher;
        try {
            watcher = ConfigWatcher.start(file);
        } catch (ConfigException e) {
            System.err.println("toolbus: " + e.getMessage());
            return 1;
        }
        try {
            for (String w : watcher.current().warnings()) {
                System.err.println("toolbus: warning: " + file.getFileName() + ": " + w);
            }
            return body.run(watcher.current().config(), watcher);
        } finally {
            watcher.close();
        }
    }
}
