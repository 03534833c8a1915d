package dev.toolbus.plugins.skills;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.tool.ToolSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SkillCatalogTest {

    @TempDir
    Path root;

    private Path write(String relative, String content) throws IOException {
        Path f = root.resolve(relative);
        Files.createDirectories(f.getParent());
        Files.writeString(f, content);
        return f;
    }

    @Test
    void scan_readsAllThreeFormats() throws IOException {
        write("pdf/SKILL.md", "---\nname: pdf-tools\ndescription: Fill and merge PDF forms\nautoActivate: true\n---\n"
                + "# PDF\n\nUse pdftk to merge.\n");
        write("plain/SKILL.md", "# Release notes\n\nWrite release notes from the git log.\n");
        write("ops/deploy.skill.yaml", "name: deploy\ndescription: Deploy the bot\ncontent: |\n  1. build\n  2. ship\n");
        write("ops/translate.skill.json", "{\"description\":\"Translate politely\",\"instructions\":\"Keep honorifics.\"}");
        write("ops/notes.md", "not a skill");

        SkillCatalog c = SkillCatalog.scan(List.of(root));

        assertThat(c.skills()).extracting(SkillDocument::name)
                .containsExactly("deploy", "translate", "pdf-tools", "plain");
        SkillDocument pdf = c.find("pdf-tools");
        assertThat(pdf.description()).isEqualTo("Fill and merge PDF forms");
        assertThat(pdf.text()).isEqualTo("# PDF\n\nUse pdftk to merge.");
        assertThat(pdf.autoActivate()).isTrue();
        SkillDocument plain = c.find("plain");
        assertThat(plain.description()).isEqualTo("Release notes");
        assertThat(c.find("deploy").text()).isEqualTo("1. build\n2. ship");
        assertThat(c.find("translate").text()).isEqualTo("Keep honorifics.");
        assertThat(c.find("DEPLOY")).isSameAs(c.find("deploy"));
        assertThat(c.skippedFiles()).isEmpty();
    }

    @Test
    void scan_appliesDepthAndFileSizeLimitsAndSkipsDuplicatesAndBrokenFiles() throws IOException {
        write("a/b/c/deep.skill.yaml", "name: deep\ncontent: x\n");
        write("top.skill.yaml", "name: top\ncontent: x\n");
        write("big.skill.json", "{\"name\":\"big\",\"content\":\"" + "x".repeat(3000) + "\"}");
        write("zzz/SKILL.md", "---\nname: top\n---\nsecond\n");
        write("broken.skill.json", "{nope");
        write("list.skill.yaml", "- a\n- b\n");

        SkillCatalog c = SkillCatalog.scan(List.of(root, root.resolve("missing")), new SkillLimits(1, 1024, 1000));

        assertThat(c.skills()).extracting(SkillDocument::name).containsExactly("top");
        assertThat(c.skippedFiles()).containsOnlyKeys(root.resolve("big.skill.json"), root.resolve("zzz/SKILL.md"),
                root.resolve("broken.skill.json"), root.resolve("list.skill.yaml"));
        assertThat(c.skippedFiles().get(root.resolve("big.skill.json"))).contains("larger than 1024 bytes");
        assertThat(c.skippedFiles().get(root.resolve("zzz/SKILL.md"))).contains("found first");
        // depth 3 reaches a/b/c
        assertThat(SkillCatalog.scan(List.of(root), new SkillLimits(3, 1024, 1000)).find("deep")).isNotNull();
    }

    @Test
    void limits_fallBackLikeThePeer() {
        assertThat(new SkillLimits(-1, 10, 5)).isEqualTo(new SkillLimits(6, 1024, 1000));
        assertThat(SkillLimits.defaults()).isEqualTo(new SkillLimits(6, 65_536, 20_000));
    }

    @Test
    void listing_andLoadedTextAreBoundByMaxPromptChars() throws IOException {
        for (int i = 0; i < 100; i++) {
            write(String.format("s%03d.skill.yaml", i), "name: skill-" + i + "\ndescription: " + "d".repeat(40)
                    + "\ncontent: " + "t".repeat(i == 0 ? 5000 : 10) + "\n");
        }
        SkillCatalog c = SkillCatalog.scan(List.of(root), new SkillLimits(6, 65_536, 1000));
        String listing = c.listing();
        assertThat(listing.length()).isLessThanOrEqualTo(1000);
        assertThat(listing).startsWith("- skill-0: ddd").contains("more skills not listed here");
        String full = c.fullText(c.find("skill-0"));
        assertThat(full).hasSizeLessThanOrEqualTo(1000).startsWith("# skill-0\n\nttt").contains("[cut: the skill has");
        assertThat(c.fullText(c.find("skill-1"))).isEqualTo("# skill-1\n\n" + "t".repeat(10));
    }

    @Test
    void loadSkill_listsSkillsInItsDescriptionAndReturnsTheFullTextAsACoreTool() throws IOException {
        write("pdf/SKILL.md", "---\nname: pdf-tools\ndescription: Fill PDF forms\n---\nStep one.\nStep two.\n");
        SkillCatalog c = SkillCatalog.scan(List.of(root));
        ToolRegistry registry = ToolRegistry.create();
        c.registerInto(registry);
        assertThat(registry.find("load_skill").source()).isEqualTo(ToolSource.CORE);
        assertThat(registry.find("load_skill").tool().definition().description(DescriptionLocale.EN))
                .contains("Skills:").contains("- pdf-tools: Fill PDF forms");

        try (ToolExecutor ex = ToolExecutor.builder().registry(registry)
                .settings(ExecutionSettings.builder().cacheResults(false).build()).build()) {
            List<ToolResultEvent> rs = ex.execute(ToolCallsEvent.of("s", "t", List.of(
                            ToolCall.ofJson("1", "load_skill", "{\"name\":\"pdf-tools\"}"),
                            ToolCall.ofJson("2", "load_skill", "{\"name\":\"nope\"}"))))
                    .filter(e -> e instanceof ToolResultEvent).map(e -> (ToolResultEvent) e)
                    .collectList().block(Duration.ofSeconds(10));
            assertThat(rs.get(0).content()).isEqualTo("# pdf-tools\n\nStep one.\nStep two.");
            assertThat(rs.get(1).error().code()).isEqualTo(ErrorCode.TOOL_ERROR);
            assertThat(rs.get(1).content()).contains("no skill named 'nope'").contains("pdf-tools");
        }
    }

    @Test
    void loadSkill_withNoSkillsSaysSo() {
        SkillCatalog c = SkillCatalog.scan(List.of(root.resolve("none")));
        assertThat(c.loadSkillTool().definition().description(DescriptionLocale.EN)).contains("No skills are installed");
    }

    @Test
    void scan_followsNoLinkOutOfTheRoot_butLinksInsideItWork(@TempDir Path outside) throws IOException {
        Path secret = outside.resolve("secret.md");
        Files.writeString(secret, "# TOP SECRET token=hunter2\n\nthe whole file\n");
        Files.createDirectories(outside.resolve("elsewhere"));
        Files.writeString(outside.resolve("elsewhere/SKILL.md"), "# Outside folder skill\n");
        Path skills = root.resolve("skills");
        write("skills/good/SKILL.md", "---\nname: good\n---\n# Good\n");
        Files.createDirectories(skills.resolve("leak"));
        Files.createSymbolicLink(skills.resolve("leak/SKILL.md"), secret);
        Files.createSymbolicLink(skills.resolve("linkeddir"), outside.resolve("elsewhere"));
        Files.createDirectories(skills.resolve("zalias"));
        Files.createSymbolicLink(skills.resolve("zalias/SKILL.md"), skills.resolve("good/SKILL.md"));

        SkillCatalog c = SkillCatalog.scan(List.of(skills));

        assertThat(c.skills()).extracting(SkillDocument::name).containsExactly("good");
        assertThat(c.listing()).doesNotContain("SECRET").doesNotContain("Outside");
        assertThat(c.find("leak")).isNull();
        assertThat(c.skippedFiles()).containsKey(skills.resolve("leak/SKILL.md"));
        assertThat(c.skippedFiles().get(skills.resolve("leak/SKILL.md"))).contains("links outside");
        // the alias inside the root is read, and is then a duplicate of "good"
        assertThat(c.skippedFiles().get(skills.resolve("zalias/SKILL.md"))).contains("was found first");

        ToolRegistry registry = ToolRegistry.create();
        c.registerInto(registry);
        ToolExecutor ex = ToolExecutor.builder().registry(registry).build();
        try {
            ToolResultEvent r = (ToolResultEvent) ex.execute(ToolCallsEvent.of("s", "t", List.of(
                    ToolCall.ofJson("1", "load_skill", "{\"name\":\"leak\"}"))))
                    .filter(e -> e instanceof ToolResultEvent).blockFirst(Duration.ofSeconds(10));
            assertThat(r.content()).doesNotContain("hunter2");
        } finally {
            ex.close();
        }
    }
}
