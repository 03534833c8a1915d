package dev.toolbus.tool;

import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.text.Texts;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The legacy MaiBot {@code @Action} conversion: metadata keys, the detailed description parts, and the
 * deprecation warning. The schema lives in {@link ToolSchemas#legacyAction}.
 */
final class LegacyActions {

    private static final Logger log = LoggerFactory.getLogger(LegacyActions.class);

    private LegacyActions() {
    }

    /** Logs the deprecation warning of one conversion. */
    static void warnDeprecated(String toolName) {
        log.warn("@Action '{}' is deprecated and is registered as a tool; use @Tool instead "
                + "(MaiBot: `Action` 装饰器已废弃，将在内部按 Tool 组件注册；请优先改用 `Tool`。)", toolName);
    }

    /**
     * The metadata keys MaiBot sets on a converted Action, in its order. They are put after the user's
     * metadata and win over it.
     */
    static Map<String, Object> metadata(ToolDefinition.LegacyAction a) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("legacy_action", true);
        m.put("legacy_component_type", "ACTION");
        m.put("activation_type", a.activationType());
        m.put("activation_keywords", a.activationKeywords());
        m.put("activation_probability", a.activationProbability());
        m.put("chat_mode", a.chatMode());
        m.put("action_parameters", a.actionParameters());
        m.put("action_require", a.actionRequire());
        m.put("associated_types", a.associatedTypes());
        m.put("parallel_action", a.parallelAction());
        m.put("action_prompt", a.actionPrompt());
        return m;
    }

    /**
     * The parts, joined by blank lines: the parameter block; the usage notes; the message types; the
     * activation lines (type, keywords, prompt); the extra detailed text. Empty parts are left out.
     */
    static String detailedDescription(ToolDefinition.LegacyAction a, String extra, DescriptionLocale locale) {
        Texts texts = Texts.of(locale);
        List<String> parts = new ArrayList<>();
        parts.add(ToolDescriptions.detailedDescription(ToolSchemas.legacyAction(a, locale), "", locale));
        List<String> notes = nonBlank(a.actionRequire());
        if (!notes.isEmpty()) {
            StringBuilder sb = new StringBuilder(texts.usageNotesHeader());
            notes.forEach(n -> sb.append("\n- ").append(n));
            parts.add(sb.toString());
        }
        List<String> types = nonBlank(a.associatedTypes());
        if (!types.isEmpty()) {
            parts.add(texts.messageTypesLine(String.join(texts.listJoiner(), types)));
        }
        StringBuilder activation = new StringBuilder(texts.activationLine(a.activationType()));
        List<String> keywords = nonBlank(a.activationKeywords());
        if (!keywords.isEmpty()) {
            activation.append('\n').append(texts.keywordsLine(String.join(texts.listJoiner(), keywords)));
        }
        String prompt = PythonText.strip(a.actionPrompt());
        if (!prompt.isEmpty()) {
            activation.append('\n').append(texts.actionPromptLine(prompt));
        }
        parts.add(activation.toString());
        parts.add(PythonText.strip(extra));
        parts.removeIf(String::isEmpty);
        return PythonText.strip(String.join("\n\n", parts));
    }

    private static List<String> nonBlank(List<String> items) {
        List<String> out = new ArrayList<>();
        for (String s : items) {
            String t = PythonText.strip(s);
            if (!t.isEmpty()) {
                out.add(t);
            }
        }
        return out;
    }
}
