package dev.toolbus.text;

/**
 * The language of the text toolbus generates: tool description fallbacks, the parameter block, media
 * placeholders and error messages. {@link #ZH} reproduces MaiBot byte for byte; {@link #EN} is the
 * English mirror documented in docs/tools.md.
 */
public enum DescriptionLocale {
    EN,
    ZH;

    /**
     * Parses {@code en} / {@code zh} (case-insensitive, {@code zh-CN} and {@code en-US} accepted).
     *
     * @throws IllegalArgumentException for anything else
     */
    public static DescriptionLocale parse(String value) {
        String v = value == null ? "" : value.strip().toLowerCase(java.util.Locale.ROOT);
        if (v.equals("en") || v.startsWith("en-") || v.startsWith("en_")) {
            return EN;
        }
        if (v.equals("zh") || v.startsWith("zh-") || v.startsWith("zh_")) {
            return ZH;
        }
        throw new IllegalArgumentException("locale must be en or zh, got '" + value + "'");
    }
}
