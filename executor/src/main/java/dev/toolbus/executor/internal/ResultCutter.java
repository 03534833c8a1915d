package dev.toolbus.executor.internal;

import com.fasterxml.jackson.databind.node.TextNode;
import dev.toolbus.executor.settings.ResultLimits;
import dev.toolbus.result.SplitResult;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.text.Texts;
import dev.toolbus.tool.ToolDefinition;

/**
 * Cuts a result's text to the call's limit ({@link ResultLimits#limitFor}) and hands the full text to
 * a {@link Keeper} (the turn state's cut results) for {@code read_tool_result}. The cut falls at a clean boundary: after the last
 * line break in the last fifth of the limit (at most 2,000 characters back), else after the last
 * space or tab there, else at the limit; never between the two halves of a surrogate pair. A marker
 * then says how long the text is, how much was cut, and how to read the rest. The media block
 * ({@code <tool_result_media_list>}) is never cut: only the text before it counts and is kept.
 *
 * <p>Applied to each emitted result, cached ones included: the cache holds the tool's full result, and
 * each call that is answered from it gets its own cut and its own kept text under its own call id.
 */
final class ResultCutter {

    /** How far back from the limit a line or word boundary is looked for: a fifth of it, at most this. */
    static final int MAX_LOOK_BACK = 2_000;
    private static final String LIST_OPEN = "<tool_result_media_list>";

    /** Estimated bytes of a kept text besides its characters and key. */
    static final long ENTRY_OVERHEAD = 96;

    /** Where a cut result's full text goes. */
    interface Keeper {
        /**
         * Keeps the full text of a call's cut result.
         *
         * @param limit the limit that cut it
         * @return whether it will be readable (the marker then names {@code read_tool_result})
         */
        boolean keep(String toolCallId, String text, int limit);
    }

    private final ResultLimits limits;
    private final java.util.function.BooleanSupplier readable;
    private final Texts texts;

    /**
     * @param readable whether {@code read_tool_result} is registered now: texts are kept, and the
     *     marker names it, only then
     */
    ResultCutter(ResultLimits limits, java.util.function.BooleanSupplier readable, DescriptionLocale locale) {
        this.limits = limits;
        this.readable = readable;
        this.texts = Texts.of(locale);
    }

    /** A cutter whose texts are always readable (tests). */
    ResultCutter(ResultLimits limits, DescriptionLocale locale) {
        this(limits, () -> true, locale);
    }

    /**
     * Whether a text fits the store's per-text bound: a quarter of {@code storeMaxBytes}, in estimated
     * bytes (2 per character plus keys and overhead).
     */
    boolean fits(String streamId, String toolCallId, String text) {
        return ENTRY_OVERHEAD + 2L * (streamId.length() + toolCallId.length() + text.length())
                <= Math.max(1, limits.storeMaxBytes() / 4);
    }

    /** Whether {@link #cut} would cut a text without media: it is longer than the call's limit. */
    boolean cuts(ToolDefinition def, String content) {
        int limit = limits.limitFor(def);
        return limit != 0 && content.length() > limit;
    }

    /** The split with its text cut to the tool's limit (the same instance when nothing is cut). */
    SplitResult cut(ToolDefinition def, String toolCallId, SplitResult split, Keeper store) {
        int limit = limits.limitFor(def);
        String content = split.content();
        if (limit == 0 || content.length() <= limit || split.error() != null) {
            return split;
        }
        String text = content;
        String block = "";
        if (!split.media().isEmpty()) {
            int b = content.lastIndexOf(LIST_OPEN);
            if (b >= 0) {
                int end = b >= 2 && content.startsWith("\n\n", b - 2) ? b - 2 : b;
                text = content.substring(0, end);
                block = content.substring(end);
                if (text.length() <= limit) {
                    return split;
                }
            }
        }
        int c = cutPoint(text, 0, limit);
        boolean kept = !toolCallId.isBlank() && readable.getAsBoolean() && store.keep(toolCallId, text, limit);
        String head = text.substring(0, c);
        String marker = marker(text.length(), c, kept ? toolCallId : null);
        String cut = head + (head.endsWith("\n") ? "\n" : "\n\n") + marker + block;
        return new SplitResult(cut, split.media(), split.messages(), null);
    }

    /**
     * The result's data once its text was cut: a bare string (the text itself, as a method returning
     * {@code String} gives it) is dropped, so the cut text is not sent whole beside it; structured data
     * stays for programs (the model reads the text).
     */
    static Object data(SplitResult whole, SplitResult cut, Object data) {
        return whole != cut && data instanceof com.fasterxml.jackson.databind.node.TextNode ? null : data;
    }

    /** A tool's error message cut to its limit, without keeping the rest. */
    String errorText(ToolDefinition def, String message) {
        int limit = limits.limitFor(def);
        if (limit == 0 || message.length() <= limit) {
            return message;
        }
        int c = cutPoint(message, 0, limit);
        return message.substring(0, c) + texts.errorCut(message.length() - c);
    }

    /**
     * Where to cut {@code text} so that at most {@code max - start} characters from {@code start} are
     * kept ({@code text.length() > max > start}): after a line break, else after a space or tab, in the
     * look-back window, else at {@code max}; one earlier when that would split a surrogate pair.
     *
     * @return the end of the kept part, in {@code (start, max]} (equal to {@code start} only when
     *     {@code max - start == 1} and that character is a high surrogate)
     */
    static int cutPoint(String text, int start, int max) {
        int window = Math.min(MAX_LOOK_BACK, (max - start) / 5);
        int floor = max - window;
        int c = -1;
        int nl = text.lastIndexOf('\n', max - 1);
        if (nl >= floor && nl >= start) {
            c = nl + 1;
        } else {
            for (int i = max - 1; i >= floor && i >= start; i--) {
                char ch = text.charAt(i);
                if (ch == ' ' || ch == '\t') {
                    c = i + 1;
                    break;
                }
            }
        }
        if (c <= start) {
            c = max;
        }
        if (c < text.length() && Character.isLowSurrogate(text.charAt(c)) && Character.isHighSurrogate(text.charAt(c - 1))) {
            c--;
        }
        return c;
    }

    private String marker(int total, int shown, String keptId) {
        int cut = total - shown;
        if (keptId == null) {
            return texts.cutNotKept(total, shown, cut);
        }
        String args = "{\"tool_call_id\": " + new TextNode(keptId) + ", \"offset\": " + shown + "}";
        return texts.cutKept(total, shown, cut, ReadToolResult.NAME, args);
    }
}
