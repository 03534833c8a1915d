package dev.toolbus.executor.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.toolbus.protocol.Json;
import dev.toolbus.tool.BuiltInTools;
import dev.toolbus.tool.DescriptionLocale;
import dev.toolbus.tool.ToolArguments;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import dev.toolbus.tool.Visibility;

/**
 * The built-in {@code read_tool_result(tool_call_id, offset, length)} tool: reads on in the full text of
 * a result that was cut for being longer than its limit (see {@code execution.maxResultChars}). It reads
 * only what the executor running the call kept for the calling stream: another conversation's call id,
 * an expired one and one that was never cut are all answered with the same {@code TOOL_ERROR}, which
 * names no other conversation.
 *
 * <p>A deferred {@code CORE} tool (not listed; the cut marker names it), registered by every executor
 * when it is built ({@link #register}) unless its registry already holds a tool of that name; while no
 * core tool of this name is registered, the executor keeps no full texts.
 * The configured policy lets every session call it without {@code tool_search} and whatever the allow
 * lists say, as it can only reveal the session's own results; a deny list or {@code disabledTools}
 * entry still switches it off. Never cached (the kept texts expire), never cut itself: a piece is at
 * most the limit that cut the text, ended at a line or word boundary like the cut.
 */
final class ReadToolResult {

    /** The tool's name. */
    static final String NAME = BuiltInTools.READ_TOOL_RESULT;

    /** Whether the registry holds it as a core tool (then cut results are kept for it). */
    static boolean registered(dev.toolbus.registry.ToolRegistry registry) {
        dev.toolbus.registry.ToolRegistry.Entry e = registry.find(NAME);
        return e != null && e.source() == dev.toolbus.tool.ToolSource.CORE;
    }

    private ReadToolResult() {
    }

    /** Registers the tool as a core tool, in the locale, unless the registry holds a tool of its name. */
    static void register(dev.toolbus.registry.ToolRegistry registry, DescriptionLocale locale) {
        if (registry.find(NAME) == null) {
            registry.register(spec(locale), dev.toolbus.tool.ToolSource.CORE);
        }
    }

    /** The tool, its texts in the locale. */
    static ToolSpec spec(DescriptionLocale locale) {
        boolean zh = locale == DescriptionLocale.ZH;
        ToolDefinition def = ToolDefinition.builder(NAME)
                .description(zh ? "读取因过长而被截断的工具结果的其余部分：给出截断提示中的 tool_call_id 和起始位置 offset。"
                        : "Read more of a tool result that was cut for being too long: give the tool_call_id and the "
                        + "offset named in the cut notice.")
                .parameter(ToolParameter.of("tool_call_id", ToolParamType.STRING,
                        zh ? "被截断结果所属调用的 tool_call_id" : "The tool_call_id of the call whose result was cut"))
                .parameter(ToolParameter.builder("offset", ToolParamType.INTEGER)
                        .description(zh ? "从第几个字符开始读（0 起）" : "The character to start at (from 0)")
                        .required(false).build())
                .parameter(ToolParameter.builder("length", ToolParamType.INTEGER)
                        .description(zh ? "最多读取的字符数（默认且至多为截断时的上限）"
                                : "How many characters to read at most (default and maximum: the limit that cut it)")
                        .required(false).build())
                .visibility(Visibility.DEFERRED)
                .cacheable(false)
                .maxResultChars(0)
                .build();
        return new ToolSpec(def, ToolHandler.sync((args, ctx) -> read(args, ctx, zh)));
    }

    private static ToolResult read(ToolArguments args, ToolContext ctx, boolean zh) {
        String id = args.string("tool_call_id", "").strip();
        FullResults store = ctx.conversation() instanceof CallRun run ? run.fullResults() : null;
        FullResults.Text kept = store == null || id.isEmpty() ? null : store.get(ctx.streamId(), id);
        if (kept == null) {
            return ToolResult.error(zh ? "此对话中没有保存调用 " + id + " 的完整结果：该结果未被截断、已过期，或不属于此对话。"
                    : "No full result of call '" + id + "' is kept for this conversation: it was not cut, it "
                    + "expired, or it belongs to another conversation.");
        }
        String text = kept.text();
        int total = text.length();
        long offsetArg = args.integer("offset", 0);
        long lengthArg = args.integer("length", kept.limit());
        if (offsetArg < 0 || offsetArg >= total) {
            return ToolResult.error(zh ? "offset " + offsetArg + " 超出范围：该结果共 " + total + " 个字符（0 到 " + (total - 1) + "）。"
                    : "offset " + offsetArg + " is out of range: the result has " + total + " characters (0 to "
                    + (total - 1) + ").");
        }
        int offset = (int) offsetArg;
        if (offset > 0 && Character.isLowSurrogate(text.charAt(offset)) && Character.isHighSurrogate(text.charAt(offset - 1))) {
            offset--;
        }
        long length = Math.max(1, Math.min(lengthArg, kept.limit()));
        int end;
        if (offset + length >= total) {
            end = total;
        } else {
            end = ResultCutter.cutPoint(text, offset, (int) (offset + length));
            if (end <= offset) {
                end = Math.min(total, offset + 2);
            }
        }
        ObjectNode data = Json.mapper().createObjectNode();
        data.put("tool_call_id", id);
        data.put("offset", offset);
        data.put("end", end);
        data.put("total", total);
        if (end < total) {
            data.put("next_offset", end);
        } else {
            data.putNull("next_offset");
        }
        String piece = text.substring(offset, end);
        String sep = piece.endsWith("\n") ? "\n" : "\n\n";
        String footer;
        if (end < total) {
            String next = "{\"tool_call_id\": " + new TextNode(id) + ", \"offset\": " + end + "}";
            footer = zh ? "[toolbus：第 " + offset + " 到 " + end + " 个字符，共 " + total + " 个；还剩 " + (total - end)
                    + " 个，继续读取请调用 " + NAME + "，参数 " + next + "。]"
                    : "[toolbus: characters " + offset + " to " + end + " of " + total + "; " + (total - end)
                    + " more. To go on, call " + NAME + " with " + next + ".]";
        } else {
            footer = zh ? "[toolbus：第 " + offset + " 到 " + end + " 个字符，共 " + total + " 个；已到结尾。]"
                    : "[toolbus: characters " + offset + " to " + end + " of " + total + "; this is the end.]";
        }
        return ToolResult.builder().content(piece + sep + footer).data(data).build();
    }
}
