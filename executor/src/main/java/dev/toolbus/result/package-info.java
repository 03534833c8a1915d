/**
 * API: from a {@link dev.toolbus.tool.ToolResult} to what the model reads: the tool-message text (MaiBot's
 * history-content rules), the {@code <tool_result_media_list>} block, and one follow-up user message
 * per media item ({@link dev.toolbus.result.MediaSplitter}); and from values of foreign tools to
 * results ({@link dev.toolbus.result.ForeignValues}).
 */
package dev.toolbus.result;
