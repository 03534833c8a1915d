/**
 * API: the immutable values an executor runs with, {@link dev.toolbus.executor.settings.ExecutionSettings}
 * and its {@link dev.toolbus.executor.settings.ResultLimits}. Strict builders that throw on a value out
 * of range; the lenient reading of {@code toolbus.yaml} and flags is {@code toolbus-config}'s. Each
 * default is stated in docs/configuration.md and in the {@code DEFAULT_*} constants.
 */
package dev.toolbus.executor.settings;
