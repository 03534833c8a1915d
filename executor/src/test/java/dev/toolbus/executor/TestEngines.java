package dev.toolbus.executor;

import dev.toolbus.executor.internal.Engine;

/** The engine behind an executor, for tests that look at its state. */
public final class TestEngines {

    private TestEngines() {
    }

    /** The engine of an executor built by {@link ToolExecutor#builder()}. */
    public static Engine engine(ToolExecutor executor) {
        return ((DefaultToolExecutor) executor).engine();
    }
}
