package dev.toolbus.plugins.skills;

/**
 * A text cut to a number of characters, with a marker at its end saying how long the whole is.
 *
 * @param text the text, whole or cut
 * @param cut whether it was cut
 */
record PromptCut(String text, boolean cut) {

    /** The whole text when it fits, else its start plus a marker, {@code max} characters in all. */
    static PromptCut cut(String text, int max) {
        if (text.length() <= max) {
            return new PromptCut(text, false);
        }
        String note = "\n\n[cut: the skill has " + text.length() + " characters; the first " + max + " are shown]";
        int keep = Math.max(0, max - note.length());
        if (keep > 0 && Character.isHighSurrogate(text.charAt(keep - 1))) {
            keep--;
        }
        // a clean boundary: the last line break in the last fifth of what is kept, if there is one
        int nl = text.lastIndexOf('\n', keep);
        if (nl > keep - keep / 5 && nl > 0) {
            keep = nl;
        }
        return new PromptCut(text.substring(0, keep) + note, true);
    }
}
