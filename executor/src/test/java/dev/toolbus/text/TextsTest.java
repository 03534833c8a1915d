package dev.toolbus.text;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.protocol.Risk;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The two catalogs: every phrase written in both, differently, and a sample of each kind word for word. */
class TextsTest {

    private static final Texts ZH = Texts.of(DescriptionLocale.ZH);
    private static final Texts EN = Texts.of(DescriptionLocale.EN);

    /** Every phrase method of {@link Texts}. */
    private static List<Method> phrases() {
        List<Method> out = new ArrayList<>();
        for (Method m : Texts.class.getMethods()) {
            if (!Modifier.isStatic(m.getModifiers()) && m.getReturnType() == String.class) {
                out.add(m);
            }
        }
        return out;
    }

    private static String call(Texts texts, Method m) throws Exception {
        Class<?>[] types = m.getParameterTypes();
        Object[] args = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            Class<?> t = types[i];
            args[i] = t == String.class ? "x" + i : t == int.class ? 7 : t == long.class ? 9L : t == boolean.class ? true
                    : m.getName().equals("approvalPrompt") ? List.of(new Texts.ApprovalLine("wipe", Risk.HIGH, "{}"))
                    : List.of("a", "b");
        }
        return (String) m.invoke(texts, args);
    }

    @Test
    void everyPhraseIsWrittenInBothLocales_andDiffersBetweenThem() throws Exception {
        List<Method> phrases = phrases();
        assertThat(phrases).hasSizeGreaterThan(60);
        for (Method m : phrases) {
            String zh = call(ZH, m);
            String en = call(EN, m);
            assertThat(zh).as("zh " + m.getName()).isNotBlank();
            assertThat(en).as("en " + m.getName()).isNotBlank();
            assertThat(zh).as(m.getName()).isNotEqualTo(en);
        }
        assertThat(ZH.locale()).isEqualTo(DescriptionLocale.ZH);
        assertThat(EN.locale()).isEqualTo(DescriptionLocale.EN);
    }

    @Test
    void theChineseTextsAreMaiBotsAndChatAisWordForWord() {
        assertThat(ZH.timedOut("web_fetch", 30_000)).isEqualTo("工具 web_fetch 执行超时 (30000ms)，已取消。");
        assertThat(ZH.unknownTool("nope")).isEqualTo("未找到工具：nope");
        assertThat(ZH.noToolName()).isEqualTo("工具调用缺少工具名称。");
        assertThat(ZH.rateLimited("s", "r1", 1500)).isEqualTo("工具 s 调用过于频繁（限制规则 r1），请在 1500 毫秒后重试。");
        assertThat(ZH.toolFailed("t")).isEqualTo("工具 t 执行失败。");
        assertThat(ZH.mediaTooLarge(2, "image", 9_000_000, 8_388_608))
                .isEqualTo("第 2 个内容项（image）解码后约 9000000 字节，超过媒体大小上限 8388608 字节。");
        assertThat(ZH.parameterLine("limit", "integer", false, "返回结果数", List.of("5", "10"), "5"))
                .isEqualTo("- limit：integer，可选。返回结果数 可选值：5、10。 默认值：5。");
        assertThat(ZH.cutKept(30, 20, 10, "read_tool_result", "{}"))
                .isEqualTo("[toolbus：此结果共 30 个字符，仅显示前 20 个，已截去 10 个。如需读取其余内容，请调用 read_tool_result，参数 {}。]");
    }

    @Test
    void theEnglishTextsMirrorThem() {
        assertThat(EN.timedOut("web_fetch", 30_000)).isEqualTo("Tool web_fetch timed out after 30000 ms and was cancelled.");
        assertThat(EN.parameterLine("limit", "integer", false, "Max results.", List.of("5", "10"), "5"))
                .isEqualTo("- limit: integer, optional. Max results. Allowed values: 5, 10. Default: 5");
        assertThat(EN.messageTypesLine("text, emoji")).isEqualTo("Message types: text, emoji.");
        assertThat(EN.messageTypesLine("text!")).as("no second full stop").isEqualTo("Message types: text!");
        assertThat(EN.tooManyContentItems(40, 32)).isEqualTo("The tool result has 40 content items, above the limit of 32.");
    }
}
