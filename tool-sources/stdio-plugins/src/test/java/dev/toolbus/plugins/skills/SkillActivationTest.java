package dev.toolbus.plugins.skills;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.ListSkillsEvent;
import dev.toolbus.protocol.SkillText;
import dev.toolbus.protocol.SkillsEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.registry.ToolRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** list_skills answers in the three modes, the prompt bound, and re-injection after load_skill. */
class SkillActivationTest {

    @TempDir
    Path root;

    private void write(String relative, String content) throws IOException {
        Path f = root.resolve(relative);
        Files.createDirectories(f.getParent());
        Files.writeString(f, content);
    }

    private void threeSkills() throws IOException {
        write("pdf/SKILL.md", "---\nname: pdf-tools\ndescription: Fill and merge PDF forms\ntriggers: [表单, acroform]\n---\n"
                + "Use pdftk to merge.\n");
        write("notes/SKILL.md", "---\nname: release-notes\ndescription: Write release notes\nautoActivate: true\n---\n"
                + "One line per change.\n");
        write("ops/deploy.skill.yaml", "name: deploy\ndescription: Deploy the bot\ncontent: |\n  1. build\n  2. ship\n");
    }

    private SkillLibrary library(SkillSettings settings) {
        return SkillLibrary.builder(List.of(root)).settings(() -> settings).build();
    }

    private static SkillsEvent ask(SkillLibrary lib, String stream, String text, String... selected) {
        return lib.answer(new ListSkillsEvent(stream, "r", null, text, List.of(selected))).block();
    }

    private static Map<String, SkillText.Reason> reasons(SkillsEvent e) {
        Map<String, SkillText.Reason> m = new java.util.LinkedHashMap<>();
        e.documents().forEach(d -> m.put(d.name(), d.reason()));
        return m;
    }

    @Test
    void autoMode_injectsAutoActivatedSelectedAndMatched_byNameFolderOrTrigger() throws IOException {
        threeSkills();
        SkillLibrary lib = library(SkillSettings.DEFAULTS);

        SkillsEvent none = ask(lib, "s", null);
        assertThat(none.mode()).isEqualTo("auto");
        assertThat(none.skills()).extracting(SkillsEvent.SkillEntry::name)
                .containsExactly("release-notes", "deploy", "pdf-tools");
        assertThat(reasons(none)).containsExactly(Map.entry("release-notes", SkillText.Reason.AUTO_ACTIVATE));

        assertThat(reasons(ask(lib, "s", "please fill this 表单 for me")))
                .containsEntry("pdf-tools", SkillText.Reason.MATCHED);
        assertThat(reasons(ask(lib, "s", "An AcroForm question"))).containsKey("pdf-tools");
        assertThat(reasons(ask(lib, "s", "look in the PDF folder"))).containsKey("pdf-tools"); // folder name
        assertThat(reasons(ask(lib, "s", "use pdf tools"))).containsKey("pdf-tools");        // name with a space
        assertThat(reasons(ask(lib, "s", "time to DEPLOY"))).containsEntry("deploy", SkillText.Reason.MATCHED);
        assertThat(reasons(ask(lib, "s", "nothing relevant"))).containsOnlyKeys("release-notes");

        SkillsEvent sel = ask(lib, "s", "deploy now", "pdf-tools", "nope");
        assertThat(reasons(sel)).containsExactly(Map.entry("pdf-tools", SkillText.Reason.SELECTED),
                Map.entry("release-notes", SkillText.Reason.AUTO_ACTIVATE), Map.entry("deploy", SkillText.Reason.MATCHED));
        assertThat(sel.missing()).containsExactly("nope");
        assertThat(sel.documents().get(0).text()).isEqualTo("# pdf-tools\n\nUse pdftk to merge.");
        assertThat(sel.truncated()).isFalse();
    }

    @Test
    void configTriggersAndAutoActivate_addToTheFiles_andFileAutoActivateCanBeTurnedOff() throws IOException {
        threeSkills();
        SkillLibrary lib = library(new SkillSettings(SkillSettings.Mode.AUTO, false, List.of("deploy"),
                Map.of("pdf-tools", List.of("合同"))));
        SkillsEvent e = ask(lib, "s", "签一下这份合同");
        assertThat(reasons(e)).containsExactly(Map.entry("deploy", SkillText.Reason.AUTO_ACTIVATE),
                Map.entry("pdf-tools", SkillText.Reason.MATCHED));
    }

    @Test
    void allMode_injectsEverySkill_unlessSomeAreSelected() throws IOException {
        threeSkills();
        SkillLibrary lib = library(new SkillSettings(SkillSettings.Mode.ALL, true, List.of(), Map.of()));
        SkillsEvent all = ask(lib, "s", "whatever");
        assertThat(all.mode()).isEqualTo("all");
        assertThat(reasons(all)).containsExactly(Map.entry("release-notes", SkillText.Reason.AUTO_ACTIVATE),
                Map.entry("deploy", SkillText.Reason.ALL), Map.entry("pdf-tools", SkillText.Reason.ALL));
        assertThat(reasons(ask(lib, "s", "whatever", "deploy"))).containsOnlyKeys("deploy", "release-notes");
    }

    @Test
    void explicitMode_injectsOnlySelectedAndAutoActivated_theTextMatchesNothing() throws IOException {
        threeSkills();
        SkillLibrary lib = library(new SkillSettings(SkillSettings.Mode.EXPLICIT, true, List.of(), Map.of()));
        assertThat(reasons(ask(lib, "s", "deploy the pdf tools"))).containsOnlyKeys("release-notes");
        assertThat(reasons(ask(lib, "s", "deploy the pdf tools", "DEPLOY")))
                .containsExactly(Map.entry("deploy", SkillText.Reason.SELECTED),
                        Map.entry("release-notes", SkillText.Reason.AUTO_ACTIVATE));
    }

    @Test
    void maxPromptChars_boundsTheDocuments_cuttingOneWithAMarker_andOmittingTheRest() throws IOException {
        write("a.skill.yaml", "name: a\ncontent: " + "a".repeat(600) + "\n");
        write("b.skill.yaml", "name: b\ncontent: " + "b".repeat(900) + "\n");
        write("c.skill.yaml", "name: c\ncontent: " + "c".repeat(300) + "\n");
        SkillLibrary lib = SkillLibrary.builder(List.of(root)).limits(new SkillLimits(6, 65_536, 1000))
                .settings(() -> new SkillSettings(SkillSettings.Mode.ALL, true, List.of(), Map.of())).build();
        SkillsEvent e = ask(lib, "s", null);
        assertThat(e.truncated()).isTrue();
        assertThat(e.documents()).extracting(SkillText::name).containsExactly("a", "b");
        SkillText a = e.documents().get(0);
        SkillText b = e.documents().get(1);
        assertThat(a.truncated()).isFalse();
        assertThat(b.truncated()).isTrue();
        assertThat(b.chars()).isEqualTo("# b\n\n".length() + 900);
        assertThat(b.text()).startsWith("# b\n\nbbb").endsWith("characters; the first " + (1000 - a.text().length())
                + " are shown]");
        assertThat(a.text().length() + b.text().length()).isLessThanOrEqualTo(1000);
        assertThat(e.omitted()).containsExactly("c");
    }

    @Test
    void aLongCatalogue_isBoundToo() throws IOException {
        for (int i = 0; i < 60; i++) {
            write(String.format("s%02d.skill.yaml", i), "name: skill-" + i + "\ndescription: " + "d".repeat(40) + "\n");
        }
        SkillLibrary lib = SkillLibrary.builder(List.of(root)).limits(new SkillLimits(6, 65_536, 1000))
                .settings(() -> new SkillSettings(SkillSettings.Mode.EXPLICIT, true, List.of(), Map.of())).build();
        SkillsEvent e = ask(lib, "s", null);
        assertThat(e.skills().size() + e.skillsOmitted()).isEqualTo(60);
        assertThat(e.skillsOmitted()).isPositive();
        assertThat(e.truncated()).isTrue();
    }

    @Test
    void loadSkill_isRememberedPerStream_andHandedBackForReinjection() throws IOException {
        threeSkills();
        SkillLibrary lib = library(new SkillSettings(SkillSettings.Mode.EXPLICIT, false, List.of(), Map.of()));
        ToolRegistry registry = ToolRegistry.create();
        lib.registerInto(registry);
        try (ToolExecutor ex = ToolExecutor.builder().registry(registry).skills(lib).build()) {
            assertThat(ask(lib, "s1", null).documents()).isEmpty();
            for (String name : List.of("deploy", "pdf-tools", "nope", "deploy")) {
                ex.execute(ToolCallsEvent.of("s1", "t-" + name, List.of(ToolCall.ofJson("c", "load_skill",
                        "{\"name\":\"" + name + "\"}")))).blockLast(Duration.ofSeconds(10));
            }
            SkillsEvent again = ask(lib, "s1", null);
            // oldest first; a second load moves it to the end; a failed load is not remembered
            assertThat(again.loaded()).containsExactly("pdf-tools", "deploy");
            assertThat(reasons(again)).containsExactly(Map.entry("pdf-tools", SkillText.Reason.LOADED),
                    Map.entry("deploy", SkillText.Reason.LOADED));
            assertThat(again.documents().get(1).text()).isEqualTo("# deploy\n\n1. build\n2. ship");
            // another stream has loaded nothing
            assertThat(ask(lib, "s2", null).loaded()).isEmpty();
            // the handler ran every time: load_skill is not cached
            ToolResultEvent r = (ToolResultEvent) ex.execute(ToolCallsEvent.of("s3", "t", List.of(ToolCall.ofJson("c",
                    "load_skill", "{\"name\":\"deploy\"}")))).blockFirst(Duration.ofSeconds(10));
            assertThat(r.cached()).isFalse();
            assertThat(lib.loadedOn("s3")).containsExactly("deploy");
        }
    }

    @Test
    void loadedMemory_isBoundedPerStream_andExpires() throws IOException {
        AtomicLong nanos = new AtomicLong();
        LoadedSkills loaded = new LoadedSkills(Duration.ofMinutes(10), nanos::get);
        for (int i = 0; i < LoadedSkills.PER_STREAM + 5; i++) {
            loaded.remember("s", "skill-" + i);
        }
        assertThat(loaded.of("s")).hasSize(LoadedSkills.PER_STREAM).first().isEqualTo("skill-5");
        nanos.addAndGet(Duration.ofMinutes(11).toNanos());
        assertThat(loaded.of("s")).isEmpty();
        assertThat(loaded.size()).isZero();
    }

    @Test
    void loadedMemory_isBoundedInBytesAcrossStreams() {
        LoadedSkills loaded = new LoadedSkills(Duration.ofHours(1), System::nanoTime);
        String name = "n".repeat(1000);
        for (int i = 0; i < 5000; i++) {
            loaded.remember("stream-" + i, name);
        }
        // each entry weighs over 2 KB: 4 MiB holds fewer than 2100 of them
        assertThat(loaded.size()).isLessThan(2100);
    }

    @Test
    void aSkillRemovedAfterItWasLoaded_isNotHandedBack() throws IOException {
        threeSkills();
        SkillLibrary lib = library(new SkillSettings(SkillSettings.Mode.EXPLICIT, false, List.of(), Map.of()));
        ToolRegistry registry = ToolRegistry.create();
        lib.registerInto(registry);
        try (ToolExecutor ex = ToolExecutor.builder().registry(registry).build()) {
            ex.execute(ToolCallsEvent.of("s", "t", List.of(ToolCall.ofJson("c", "load_skill", "{\"name\":\"deploy\"}"))))
                    .blockLast(Duration.ofSeconds(10));
        }
        Files.delete(root.resolve("ops/deploy.skill.yaml"));
        assertThat(lib.reload()).isTrue();
        SkillsEvent e = ask(lib, "s", null);
        assertThat(e.loaded()).isEmpty();
        assertThat(e.documents()).isEmpty();
    }
}
