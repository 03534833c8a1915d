package dev.toolbus.tool;

import java.util.List;

/**
 * The words of generated description text, per locale. {@code ZH} is MaiBot's text (full-width
 * punctuation, {@code 、} as list joiner); {@code EN} mirrors its structure with ASCII punctuation and
 * the separator rule of {@link #sentence(String, String)}.
 */
enum Phrases {
    ZH("工具 ", "参数说明：", "必填", "可选", "无额外说明", "兼容旧 Action 参数", "、",
            "使用建议：", "适用消息类型：", "兼容旧 Action 激活方式：", "激活关键词：", "原始 Action 提示语："),
    EN("Tool ", "Parameter details:", "required", "optional", "No additional description",
            "Legacy Action parameter", ", ", "Usage notes:", "Message types: ", "Legacy Action activation: ",
            "Activation keywords: ", "Original Action prompt: ");

    final String toolPrefix;
    final String blockHeader;
    final String required;
    final String optional;
    final String noDescription;
    final String legacyParameter;
    final String joiner;
    final String usageHeader;
    final String messageTypes;
    final String activation;
    final String keywords;
    final String prompt;

    Phrases(String toolPrefix, String blockHeader, String required, String optional, String noDescription,
            String legacyParameter, String joiner, String usageHeader, String messageTypes, String activation,
            String keywords, String prompt) {
        this.toolPrefix = toolPrefix;
        this.blockHeader = blockHeader;
        this.required = required;
        this.optional = optional;
        this.noDescription = noDescription;
        this.legacyParameter = legacyParameter;
        this.joiner = joiner;
        this.usageHeader = usageHeader;
        this.messageTypes = messageTypes;
        this.activation = activation;
        this.keywords = keywords;
        this.prompt = prompt;
    }

    static Phrases of(DescriptionLocale locale) {
        return locale == DescriptionLocale.ZH ? ZH : EN;
    }

    /** The fallback description of a tool: {@code 工具 {name}} / {@code Tool {name}}. */
    String fallback(String toolName) {
        return toolPrefix + toolName;
    }

    /**
     * One parameter line of the block.
     *
     * <p>zh: {@code - name：type，必填。desc 可选值：a、b。 默认值：5。}<br>
     * en: {@code - name: type, required. desc. Allowed values: a, b. Default: 5}
     */
    String parameterLine(String name, String type, boolean isRequired, String description, List<String> enumValues,
                         String defaultValue) {
        String req = isRequired ? required : optional;
        if (this == ZH) {
            StringBuilder sb = new StringBuilder("- ").append(name).append('：').append(type).append('，')
                    .append(req).append('。').append(description);
            if (!enumValues.isEmpty()) {
                sb.append(" 可选值：").append(String.join(joiner, enumValues)).append('。');
            }
            if (defaultValue != null) {
                sb.append(" 默认值：").append(defaultValue).append('。');
            }
            return sb.toString();
        }
        String line = "- " + name + ": " + type + ", " + req + ". " + description;
        if (!enumValues.isEmpty()) {
            line = sentence(line, "Allowed values: " + String.join(joiner, enumValues));
        }
        if (defaultValue != null) {
            line = sentence(line, "Default: " + defaultValue);
        }
        return line;
    }

    /** A closing line such as {@code 适用消息类型：text、emoji。} / {@code Message types: text, emoji.}. */
    String closed(String label, String value) {
        if (this == ZH) {
            return label + value + "。";
        }
        return endsSentence(value) ? label + value : label + value + ".";
    }

    /**
     * English clause joining: {@code text + ". " + next}, or {@code text + " " + next} when the text
     * already ends with sentence punctuation ({@code . ! ? 。 ！ ？}), so a description that ends with a
     * full stop does not get a second one.
     */
    static String sentence(String text, String next) {
        return endsSentence(text) ? text + " " + next : text + ". " + next;
    }

    private static boolean endsSentence(String text) {
        if (text.isEmpty()) {
            return false;
        }
        char c = text.charAt(text.length() - 1);
        return c == '.' || c == '!' || c == '?' || c == '。' || c == '！' || c == '？';
    }
}
