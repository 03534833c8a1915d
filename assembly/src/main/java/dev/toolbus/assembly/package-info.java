/**
 * The one assembly of toolbus: {@link dev.toolbus.assembly.ToolbusAssembly} turns a
 * {@code Config} plus overrides into a running {@link dev.toolbus.assembly.Toolbus} (tool sources,
 * policy, approval, limits, dispatch, idempotency, executor, bus, gateway). The CLI, the Spring Boot
 * starter and embedding programs build through it.
 */
package dev.toolbus.assembly;
