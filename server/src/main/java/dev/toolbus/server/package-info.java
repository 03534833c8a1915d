/**
 * The runnable toolbus: the picocli CLI ({@code demo}, {@code serve}) and its wiring. Stdout is the
 * protocol channel; logs and diagnostics go to stderr.
 */
package dev.toolbus.server;
