/**
 * The {@code toolbus.yaml} configuration: an immutable {@link dev.toolbus.config.Config} with one type per
 * section next to the reader of its keys ({@link dev.toolbus.config.BusConfig} and {@code BusSection}, …; each
 * built in code by a strict builder, read from a file leniently), {@link dev.toolbus.config.ConfigLoader} (fallbacks with warnings, {@code ${ENV}} references, the
 * effective config as YAML), {@link dev.toolbus.config.ConfigWatcher} (hot reload) and
 * {@link dev.toolbus.config.LiveConfig} (swaps the policy atomically). docs/configuration.md lists
 * every key.
 */
package dev.toolbus.config;
