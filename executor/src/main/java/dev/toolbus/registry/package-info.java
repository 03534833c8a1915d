/**
 * API: the {@link dev.toolbus.registry.ToolRegistry} (name → tool, with the clash rules) and
 * {@link dev.toolbus.registry.ToolExport} (definitions as OpenAI, Anthropic and MCP tool JSON).
 */
package dev.toolbus.registry;
