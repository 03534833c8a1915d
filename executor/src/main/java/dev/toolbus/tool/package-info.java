/**
 * API: the tool model: immutable {@link dev.toolbus.tool.ToolDefinition definitions}, the
 * {@link dev.toolbus.tool.ToolHandler handlers} that run them, what a handler sees
 * ({@link dev.toolbus.tool.ToolContext}, {@link dev.toolbus.tool.ToolArguments}) and what it returns
 * ({@link dev.toolbus.tool.ToolResult}, {@link dev.toolbus.tool.ContentItem}).
 *
 * <p>Tools are declared three ways, all producing one {@link dev.toolbus.tool.ToolSpec}: annotations
 * ({@link dev.toolbus.tool.Tool @Tool}, {@link dev.toolbus.tool.Param @Param}, the legacy
 * {@link dev.toolbus.tool.Action @Action}) read by {@code dev.toolbus.tool.method.Tools.fromObject},
 * the {@link dev.toolbus.tool.ToolDefinition#builder(String) builder}, and the function adapters of
 * {@code dev.toolbus.tool.method.Tools}. The names of the tools toolbus provides itself are in
 * {@link dev.toolbus.tool.BuiltInTools}.
 */
package dev.toolbus.tool;
