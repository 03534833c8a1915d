package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.registry.ToolRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A reload puts the new policy in force before the new config shows: whoever reads the approval, rules
 * or limits of a config (a call at its gate) finds that config's policy, or a newer one, in force, never
 * an older one. {@code ToolbusAssemblyTest} once saw the reloaded approval ask about a tool the same
 * reload denied.
 */
class LiveConfigOrderTest {

    private static final int RELOADS = 300;

    private static Config config(int generation) {
        return ConfigLoader.parse("approval: {mode: ask, timeoutMs: " + (1000 + generation) + "}\n"
                + "tools: {deny: [t" + generation + "]}\n", Map.<String, String>of()::get).config();
    }

    @Test
    void theConfigNeverShowsAGenerationWhosePolicyIsNotInForce() throws Exception {
        List<Config> configs = new ArrayList<>();
        for (int g = 0; g <= RELOADS; g++) {
            configs.add(config(g));
        }
        LiveConfig live = LiveConfig.create(configs.get(0), ToolRegistry.create());
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<String> seen = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            while (!done.get() && seen.get() == null) {
                long shown = live.approval().get().timeout().toMillis() - 1000;
                String denied = live.policy().config().tools().deny().get(0);
                long inForce = Long.parseLong(denied.substring(1));
                if (inForce < shown) {
                    seen.set("config " + shown + " shown while the policy of " + inForce + " was in force");
                }
            }
        });
        reader.start();
        try {
            for (int g = 1; g <= RELOADS && seen.get() == null; g++) {
                live.apply(configs.get(g));
            }
        } finally {
            done.set(true);
            reader.join(10_000);
        }
        assertThat(seen.get()).isNull();
        assertThat(live.policy().config().tools().deny()).containsExactly("t" + RELOADS);
    }
}
