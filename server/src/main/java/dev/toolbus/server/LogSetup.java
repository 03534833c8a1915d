package dev.toolbus.server;

import java.util.Locale;

/**
 * Configures slf4j-simple before the first logger exists: everything to stderr (stdout carries the
 * protocol), at the level of {@code --log-level} (a {@code -Dorg.slf4j.simpleLogger.*} property given
 * to the JVM is kept unless the flag overrides it). {@code call}, {@code tools} and {@code check-config}
 * default to {@code warn}. The flag is read from the raw arguments because
 * picocli parses them only after classes with loggers are loaded; picocli still validates it.
 */
final class LogSetup {

    static final String DEFAULT_LEVEL = "info";
    private static final java.util.Set<String> CLIENT_COMMANDS = java.util.Set.of("call", "tools", "check-config");

    private LogSetup() {
    }

    static void apply(String[] args) {
        String level = null;
        boolean client = false;
        for (int i = 0; i < args.length; i++) {
            client |= CLIENT_COMMANDS.contains(args[i]);
            if (args[i].equals("--log-level") && i + 1 < args.length) {
                level = args[i + 1];
            } else if (args[i].startsWith("--log-level=")) {
                level = args[i].substring("--log-level=".length());
            }
        }
        setDefault("org.slf4j.simpleLogger.logFile", "System.err");
        if (level != null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level.toLowerCase(Locale.ROOT));
        }
        // the client commands print their answer; their progress logs are noise unless asked for
        setDefault("org.slf4j.simpleLogger.defaultLogLevel", client ? "warn" : DEFAULT_LEVEL);
        setDefault("org.slf4j.simpleLogger.showDateTime", "true");
        setDefault("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
        setDefault("org.slf4j.simpleLogger.showShortLogName", "true");
    }

    private static void setDefault(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
