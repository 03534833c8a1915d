package dev.toolbus.plugins.skills;

/**
 * Bounds on skill scanning. Out-of-range values fall back as ChatAI's {@code documents} settings do:
 * a negative depth becomes {@value #DEFAULT_MAX_DEPTH}, a file bound under 1024 becomes 1024, a prompt
 * bound under 1000 becomes 1000.
 *
 * @param maxDepth how many folder levels below a scanned path are searched (0: only the path itself)
 * @param maxFileBytes skill files larger than this are skipped
 * @param maxPromptChars the most characters of skill text handed to the model at once: the listing in
 *     {@code load_skill}'s description, and one loaded skill
 */
public record SkillLimits(int maxDepth, int maxFileBytes, int maxPromptChars) {

    public static final int DEFAULT_MAX_DEPTH = 6;
    public static final int DEFAULT_MAX_FILE_BYTES = 65_536;
    public static final int DEFAULT_MAX_PROMPT_CHARS = 20_000;
    public static final int MIN_FILE_BYTES = 1024;
    public static final int MIN_PROMPT_CHARS = 1000;

    public SkillLimits {
        maxDepth = maxDepth < 0 ? DEFAULT_MAX_DEPTH : maxDepth;
        maxFileBytes = Math.max(maxFileBytes, MIN_FILE_BYTES);
        maxPromptChars = Math.max(maxPromptChars, MIN_PROMPT_CHARS);
    }

    /** depth 6, 64 KiB per file, 20,000 characters. */
    public static SkillLimits defaults() {
        return new SkillLimits(DEFAULT_MAX_DEPTH, DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_PROMPT_CHARS);
    }
}
