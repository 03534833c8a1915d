package dev.toolbus.plugins.skills;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.protocol.ListSkillsEvent;
import dev.toolbus.protocol.SkillsEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.text.DescriptionLocale;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Watched skill folders: add, change, remove; a bad file keeps the last good skill. */
class SkillReloadTest {

    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration PROMPTLY = Duration.ofSeconds(10);

    @TempDir
    Path root;

    private SkillLibrary lib;

    @AfterEach
    void stop() {
        if (lib != null) {
            lib.close();
        }
    }

    private Path write(String relative, String content) throws IOException {
        Path f = root.resolve(relative);
        Files.createDirectories(f.getParent());
        // written beside and moved in: the watcher never sees half a file
        Path tmp = f.resolveSibling(f.getFileName() + ".tmp");
        Files.writeString(tmp, content);
        // a later mtime even on file systems with coarse timestamps
        Files.setLastModifiedTime(tmp, FileTime.fromMillis(System.currentTimeMillis() + 2000 + content.length()));
        Files.move(tmp, f, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        return f;
    }

    private List<String> names() {
        return lib.answer(ListSkillsEvent.of("s")).block().skills().stream().map(SkillsEvent.SkillEntry::name).toList();
    }

    private String loadSkillDescription(ToolRegistry r) {
        return r.find("load_skill").tool().definition().description(DescriptionLocale.EN);
    }

    @Test
    void addingChangingAndRemovingFiles_updatesTheCatalogueAndLoadSkill() throws IOException {
        write("a/SKILL.md", "---\nname: alpha\ndescription: First\n---\nA text\n");
        ToolRegistry registry = ToolRegistry.create();
        lib = SkillLibrary.builder(List.of(root)).build().registerInto(registry).watch(POLL);
        assertThat(names()).containsExactly("alpha");

        write("b/beta.skill.json", "{\"name\":\"beta\",\"description\":\"Second\",\"content\":\"B text\"}");
        await().atMost(PROMPTLY).until(() -> names().equals(List.of("alpha", "beta")));
        // the catalogue changes first, then load_skill is registered again with the new list
        await().atMost(PROMPTLY).untilAsserted(() -> assertThat(loadSkillDescription(registry)).contains("- beta: Second"));

        write("a/SKILL.md", "---\nname: alpha\ndescription: First, edited\n---\nA text, edited\n");
        await().atMost(PROMPTLY).until(() -> lib.catalog().find("alpha").text().equals("A text, edited"));
        await().atMost(PROMPTLY).untilAsserted(() ->
                assertThat(loadSkillDescription(registry)).contains("- alpha: First, edited"));

        Files.delete(root.resolve("b/beta.skill.json"));
        await().atMost(PROMPTLY).until(() -> names().equals(List.of("alpha")));
        await().atMost(PROMPTLY).untilAsserted(() -> assertThat(loadSkillDescription(registry)).doesNotContain("beta"));
        assertThat(registry.entries()).hasSize(1);
    }

    @Test
    void aFileThatTurnsBad_keepsItsLastGoodSkill_untilItIsFixed() throws IOException {
        Path f = write("a/SKILL.md", "---\nname: alpha\ndescription: Good\n---\nGood text\n");
        lib = SkillLibrary.builder(List.of(root)).limits(new SkillLimits(6, 1024, 1000)).build().watch(POLL);

        write("a/SKILL.md", "---\nname: [unclosed\n---\nbroken\n");
        await().atMost(PROMPTLY).until(() -> lib.catalog().skippedFiles().containsKey(f));
        assertThat(lib.catalog().skippedFiles().get(f)).contains("the last good version is kept");
        assertThat(lib.catalog().find("alpha").text()).isEqualTo("Good text");

        write("a/SKILL.md", "x".repeat(5000));
        await().atMost(PROMPTLY).until(() -> String.valueOf(lib.catalog().skippedFiles().get(f)).contains("larger than"));
        assertThat(lib.catalog().find("alpha").description()).isEqualTo("Good");

        write("a/SKILL.md", "---\nname: alpha\ndescription: Fixed\n---\nFixed text\n");
        await().atMost(PROMPTLY).until(() -> lib.catalog().find("alpha").description().equals("Fixed"));
        assertThat(lib.catalog().skippedFiles()).isEmpty();
    }

    @Test
    void aChangeApplies_onlyOnceTwoLooksAgree_soAFileBeingWrittenIsNotRead() throws IOException {
        Path f = write("a/SKILL.md", "---\nname: alpha\ndescription: Good\n---\nGood text\n");
        lib = SkillLibrary.builder(List.of(root)).build(); // polled by hand, no watcher thread
        Files.writeString(f, "---\nname: al"); // half written
        lib.poll();
        assertThat(lib.catalog().find("alpha").description()).isEqualTo("Good");
        Files.writeString(f, "---\nname: alpha\ndescription: Better\n---\nBetter text\n");
        Files.setLastModifiedTime(f, FileTime.fromMillis(System.currentTimeMillis() + 60_000));
        lib.poll(); // differs from the previous look: still waiting
        assertThat(lib.catalog().find("alpha").description()).isEqualTo("Good");
        lib.poll(); // the same as the previous look: applied
        assertThat(lib.catalog().find("alpha").description()).isEqualTo("Better");
        lib.poll();
        assertThat(lib.catalog().find("alpha").description()).isEqualTo("Better");
    }

    @Test
    void loadSkill_appearsWhenTheFirstSkillDoes() throws IOException {
        ToolRegistry registry = ToolRegistry.create();
        lib = SkillLibrary.builder(List.of(root)).build().registerInto(registry).watch(POLL);
        assertThat(registry.find("load_skill")).isNull();
        write("n/SKILL.md", "---\nname: newcomer\n---\nhello\n");
        await().atMost(PROMPTLY).until(() -> registry.find("load_skill") != null);
        assertThat(loadSkillDescription(registry)).contains("newcomer");
    }
}
