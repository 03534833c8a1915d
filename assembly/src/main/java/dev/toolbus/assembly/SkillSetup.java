package dev.toolbus.assembly;

import dev.toolbus.config.Config;
import dev.toolbus.plugins.skills.SkillLibrary;
import dev.toolbus.plugins.skills.SkillLimits;
import dev.toolbus.plugins.skills.SkillSettings;
import dev.toolbus.registry.ToolRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The skill documents of an assembly: a {@link SkillLibrary} over the skill paths override or
 * {@code documents.paths}, its {@code load_skill} tool, watched for changes, answering
 * {@code list_skills} with the {@code documents} settings in force (a config reload applies mode,
 * autoActivate and triggers at once).
 */
final class SkillSetup {

    /** How often skill folders are looked at. */
    static final Duration POLL = Duration.ofSeconds(1);

    private final SkillLibrary library;
    private final AtomicReference<Supplier<Config.Documents>> documents;

    private SkillSetup(SkillLibrary library, AtomicReference<Supplier<Config.Documents>> documents) {
        this.library = library;
        this.documents = documents;
    }

    /**
     * Scans, registers {@code load_skill} and starts watching.
     *
     * @param offerWhenEmpty offer {@code load_skill} even without skills (the paths came from a flag)
     */
    static SkillSetup start(List<Path> paths, Config.Documents d, boolean offerWhenEmpty, ToolRegistry registry) {
        AtomicReference<Supplier<Config.Documents>> docs = new AtomicReference<>(() -> d);
        SkillLibrary library = SkillLibrary.builder(paths).limits(limits(d))
                .settings(() -> settings(docs.get().get())).offerWhenEmpty(offerWhenEmpty).build();
        library.registerInto(registry).watch(POLL);
        return new SkillSetup(library, docs);
    }

    /** Reads the settings from here on (the live config). */
    void follow(Supplier<Config.Documents> live) {
        documents.set(live);
    }

    SkillLibrary library() {
        return library;
    }

    void close() {
        library.close();
    }

    static SkillLimits limits(Config.Documents d) {
        return new SkillLimits(d.maxDepth(), (int) Math.min(Integer.MAX_VALUE, d.maxFileBytes()), d.maxPromptChars());
    }

    static SkillSettings settings(Config.Documents d) {
        return new SkillSettings(SkillSettings.Mode.parse(d.mode()), d.fileAutoActivate(), d.autoActivate(),
                d.triggers());
    }
}
