package dev.toolbus.executor.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.toolbus.protocol.Json;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.spi.CutResults;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.text.Texts;
import dev.toolbus.tool.BuiltInTools;
import dev.toolbus.tool.ToolArguments;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import dev.toolbus.tool.Visibility;
import reactor.core.publisher.Mono;

/**
 * The built-in {@code read_tool_result(tool_call_id, offset, length)} tool: reads on in the full text of
 * a result that was cut for being longer than its limit (see {@code execution.maxResultChars}). It reads
 * the turn state's cut results (shared by the instances that share the state) under the calling turn's
 * principal and stream only: another conversation's call id, another principal's on the same stream,
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
    static boolean registered(ToolRegistry registry) {
        ToolRegistry.Entry e = registry.find(NAME);
        return e != null && e.source() == dev.toolbus.tool.ToolSource.CORE;
    }

    private ReadToolResult() {
    }

    /** Registers the tool as a core tool, in the locale, unless the registry holds a tool of its name. */
    static void register(ToolRegistry registry, DescriptionLocale locale) {
        if (registry.find(NAME) == null) {
            registry.register(spec(locale), ToolSource.CORE);
        }
    }

    /** The tool, its texts in the locale. */
    static ToolSpec spec(DescriptionLocale locale) {
        Texts texts = Texts.of(locale);
        ToolDefinition def = ToolDefinition.builder(NAME)
                .description(texts.readToolResultDescription())
                .parameter(ToolParameter.of("tool_call_id", ToolParamType.STRING, texts.readToolCallIdParameter()))
                .parameter(ToolParameter.builder("offset", ToolParamType.INTEGER)
                        .description(texts.readOffsetParameter()).required(false).build())
                .parameter(ToolParameter.builder("length", ToolParamType.INTEGER)
                        .description(texts.readLengthParameter()).required(false).build())
                .visibility(Visibility.DEFERRED)
                .cacheable(false)
                .maxResultChars(0)
                .build();
        return new ToolSpec(def, (args, ctx) -> read(args, ctx, texts));
    }

    /**
     * Reads the cut results of the call's turn, which it finds among the services of the call's context
     * (absent: a context made by anything but an executor, so nothing is kept for it).
     */
    private static Mono<ToolResult> read(ToolArguments args, ToolContext ctx, Texts texts) {
        String id = args.string("tool_call_id", "").strip();
        CutReader store = ctx.service(CutReader.class).orElse(null);
        if (store == null || id.isEmpty()) {
            return Mono.just(ToolResult.error(texts.resultNotKept(id)));
        }
        return store.read(id).map(kept -> piece(args, id, kept, texts))
                .defaultIfEmpty(ToolResult.error(texts.resultNotKept(id)));
    }

    private static ToolResult piece(ToolArguments args, String id, CutResults.Cut kept, Texts texts) {
        String text = kept.text();
        int total = text.length();
        long offsetArg = args.integer("offset", 0);
        long lengthArg = args.integer("length", kept.limit());
        if (offsetArg < 0 || offsetArg >= total) {
            return ToolResult.error(texts.offsetOutOfRange(offsetArg, total));
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
            footer = texts.readMore(offset, end, total, NAME, next);
        } else {
            footer = texts.readEnd(offset, end, total);
        }
        return ToolResult.builder().content(piece + sep + footer).data(data).build();
    }
}
