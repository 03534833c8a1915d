package dev.toolbus.tool;

import java.util.List;

/** Reads annotated plugin methods into tool specs. Placeholder. */
final class AnnotatedTools {

    private AnnotatedTools() {
    }

    static List<ToolSpec> read(Object plugin) {
        throw new UnsupportedOperationException("not yet");
    }
}
