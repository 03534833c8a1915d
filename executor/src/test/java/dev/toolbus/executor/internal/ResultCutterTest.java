package dev.toolbus.executor.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.settings.ResultLimits;
import dev.toolbus.protocol.MediaRef;
import dev.toolbus.result.SplitResult;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.tool.ToolDefinition;
import java.time.Duration;
import dev.toolbus.spi.CutResults;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Issue 11.4: where a long result is cut, the marker, and which limit applies. */
class ResultCutterTest {

    private final AtomicLong nanos = new AtomicLong();

    private static ResultLimits limits(int max, Map<String, Integer> byTool) {
        return ResultLimits.builder().maxChars(max).byTool(byTool).build();
    }

    /** The kept full texts, by stream and call, within the store's per-text bound (as the executor keeps them). */
    private static final class Store {
        final Map<String, CutResults.Cut> texts = new HashMap<>();

        CutResults.Cut get(String stream, String id) {
            return texts.get(stream + "/" + id);
        }

        int size() {
            return texts.size();
        }
    }

    /** A cutter in English with its store. */
    private static final class Cutter {
        final ResultCutter cutter;
        final Store store;

        Cutter(ResultCutter cutter, Store store) {
            this.cutter = cutter;
            this.store = store;
        }

        SplitResult cut(ToolDefinition def, String stream, String id, SplitResult split) {
            return cutter.cut(def, id, split, (callId, text, limit) -> {
                if (!cutter.fits(stream, callId, text)) {
                    return false;
                }
                store.texts.put(stream + "/" + callId, new CutResults.Cut(text, limit));
                return true;
            });
        }

        String errorText(ToolDefinition def, String message) {
            return cutter.errorText(def, message);
        }
    }

    private Cutter cutter(ResultLimits l, Store store) {
        return new Cutter(new ResultCutter(l, DescriptionLocale.EN), store);
    }

    private Store store(ResultLimits l) {
        return new Store();
    }

    private static SplitResult text(String s) {
        return new SplitResult(s, List.of(), List.of(), null);
    }

    private static ToolDefinition tool(String name) {
        return ToolDefinition.builder(name).build();
    }

    @Test
    void aTextAtTheLimitIsLeftAloneAndOneAboveIsCut() {
        ResultLimits l = limits(100, Map.of());
        Store store = store(l);
        Cutter c = cutter(l, store);
        SplitResult exact = text("x".repeat(100));
        assertThat(c.cut(tool("t"), "s", "c1", exact)).isSameAs(exact);
        assertThat(store.get("s", "c1")).isNull();
        SplitResult cut = c.cut(tool("t"), "s", "c1", text("x".repeat(101)));
        assertThat(cut.content()).startsWith("x".repeat(100) + "\n\n[toolbus: this result is 101 characters long; "
                + "the first 100 are shown and 1 were cut. To read the rest, call read_tool_result with "
                + "{\"tool_call_id\": \"c1\", \"offset\": 100}.]");
        assertThat(store.get("s", "c1").text()).isEqualTo("x".repeat(101));
        assertThat(store.get("s", "c1").limit()).isEqualTo(100);
    }

    @Test
    void theCutFallsAfterTheLastLineBreakNearTheLimit() {
        String text = "a".repeat(90) + "\n" + "b".repeat(50);
        assertThat(ResultCutter.cutPoint(text, 0, 100)).isEqualTo(91);
        // a line break further back than a fifth of the limit is not used: a space is
        String far = "a".repeat(10) + "\n" + "b".repeat(80) + " " + "c".repeat(50);
        assertThat(ResultCutter.cutPoint(far, 0, 100)).isEqualTo(92);
        // no boundary in the window: at the limit
        assertThat(ResultCutter.cutPoint("z".repeat(300), 0, 100)).isEqualTo(100);
        // from an offset, the window is a fifth of the piece
        String piece = "q".repeat(1000) + "x".repeat(95) + "\n" + "y".repeat(200);
        assertThat(ResultCutter.cutPoint(piece, 1000, 1100)).isEqualTo(1096);
    }

    @Test
    void theCutNeverSplitsASurrogatePair() {
        String face = "\uD83D\uDE00"; // U+1F600, two UTF-16 units
        String text = "a".repeat(99) + face + "tail".repeat(10);
        int c = ResultCutter.cutPoint(text, 0, 100);
        assertThat(c).isEqualTo(99);
        assertThat(Character.isHighSurrogate(text.charAt(c - 1))).isFalse();
        ResultLimits l = limits(100, Map.of());
        SplitResult cut = cutter(l, store(l)).cut(tool("t"), "s", "c1", text(text));
        assertThat(cut.content()).startsWith("a".repeat(99) + "\n\n[toolbus:").contains("\"offset\": 99}");
        // a pair just before the limit is kept whole
        String kept = "a".repeat(98) + face + "b".repeat(50);
        assertThat(ResultCutter.cutPoint(kept, 0, 100)).isEqualTo(100);
    }

    @Test
    void aPerToolLimitWinsOverTheToolsOwnWhichWinsOverTheGlobalOne() {
        ResultLimits l = limits(1000, Map.of("big", 0, "web_*", 200, "exact", 150));
        assertThat(l.limitFor(tool("other"))).isEqualTo(1000);
        assertThat(l.limitFor(ToolDefinition.builder("own").maxResultChars(300).build())).isEqualTo(300);
        assertThat(l.limitFor(ToolDefinition.builder("Web_Fetch").maxResultChars(300).build())).isEqualTo(200);
        assertThat(l.limitFor(ToolDefinition.builder("exact").maxResultChars(300).build())).isEqualTo(150);
        assertThat(l.limitFor(tool("big"))).isZero();
        ResultLimits off = limits(0, Map.of());
        assertThat(off.limitFor(tool("x"))).isZero();
        assertThat(off.limitFor(ToolDefinition.builder("x").maxResultChars(120).build())).isEqualTo(120);
        Store store = store(l);
        SplitResult huge = text("h".repeat(5000));
        assertThat(cutter(l, store).cut(tool("big"), "s", "c", huge)).isSameAs(huge);
        assertThat(cutter(l, store).cut(tool("web_fetch"), "s", "c", huge).content()).startsWith("h".repeat(200) + "\n\n[");
    }

    @Test
    void theMediaBlockIsNeverCutAndOnlyTheTextBeforeItIsKept() {
        String block = "<tool_result_media_list>\n  <media msg_id=\"tool_result:c1:1\" type=\"image\" />\n"
                + "</tool_result_media_list>";
        String body = "w ".repeat(100);
        SplitResult split = new SplitResult(body.strip() + "\n\n" + block,
                List.of(MediaRef.builder().index("tool_result:c1:1").type("image").mimeType("image/png")
                        .build()), List.of(), null);
        ResultLimits l = limits(100, Map.of());
        Store store = store(l);
        SplitResult cut = cutter(l, store).cut(tool("t"), "s", "c1", split);
        assertThat(cut.content()).endsWith("\n\n" + block).contains("[toolbus: this result is 199 characters long");
        assertThat(cut.media()).isEqualTo(split.media());
        assertThat(store.get("s", "c1").text()).isEqualTo(body.strip());
        // the block alone over the limit: nothing to cut
        SplitResult small = new SplitResult("short\n\n" + block + "x".repeat(100), split.media(), List.of(), null);
        assertThat(cutter(l, store).cut(tool("t"), "s", "c2", small)).isSameAs(small);
    }

    @Test
    void aTextTooLargeToKeepIsCutWithAMarkerSayingSo() {
        ResultLimits l = ResultLimits.builder().maxChars(100).storeMaxBytes(4_000).storeMaxEntries(10).build();
        Store store = store(l);
        SplitResult cut = cutter(l, store).cut(tool("t"), "s", "c1", text("x".repeat(3_000)));
        assertThat(cut.content()).endsWith("[toolbus: this result is 3000 characters long; the first 100 are shown "
                + "and 2900 were cut. The rest was not kept.]");
        assertThat(store.get("s", "c1")).isNull();
    }

    @Test
    void theChineseMarkerNamesTheToolAndTheOffset() {
        ResultLimits l = limits(100, Map.of());
        SplitResult cut = new Cutter(new ResultCutter(l, DescriptionLocale.ZH), store(l)).cut(tool("t"), "s", "id\"1",
                text("字".repeat(150)));
        assertThat(cut.content()).isEqualTo("字".repeat(100) + "\n\n[toolbus：此结果共 150 个字符，仅显示前 100 个，已截去 50 个。"
                + "如需读取其余内容，请调用 read_tool_result，参数 {\"tool_call_id\": \"id\\\"1\", \"offset\": 100}。]");
    }

    @Test
    void anErrorMessageIsCutWithoutKeeping() {
        ResultLimits l = limits(100, Map.of());
        Store store = store(l);
        assertThat(cutter(l, store).errorText(tool("t"), "e".repeat(150))).isEqualTo("e".repeat(100) + "…[50 characters cut]");
        assertThat(cutter(l, store).errorText(tool("t"), "short")).isEqualTo("short");
        assertThat(store.size()).isZero();
    }

}
