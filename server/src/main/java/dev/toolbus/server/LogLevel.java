package dev.toolbus.server;

/** The values of {@code --log-level}. */
enum LogLevel {
    TRACE, DEBUG, INFO, WARN, ERROR, OFF
}
