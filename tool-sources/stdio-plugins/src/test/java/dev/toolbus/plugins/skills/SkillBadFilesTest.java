package dev.toolbus.plugins.skills;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Skill files that are huge, binary, not UTF-8, malformed, looping links or too deep: skipped with a reason. */
class SkillBadFilesTest {

    @TempDir
    Path root;

    private Path write(String relative, byte[] content) throws IOException {
        Path f = root.resolve(relative);
        Files.createDirectories(f.getParent());
        Files.write(f, content);
        return f;
    }

    private Path write(String relative, String content) throws IOException {
        return write(relative, content.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void everyBadFile_isSkippedWithAReason_andTheGoodOnesStay() throws IOException {
        write("good/SKILL.md", "---\nname: good\n---\nfine\n");
        Path huge = write("huge/SKILL.md", "---\nname: huge\n---\n" + "x".repeat(2_000_000));
        Path binary = write("bin/SKILL.md", new byte[] {'-', '-', '-', '\n', 0, 1, 2, (byte) 0xff, '\n'});
        Path latin1 = write("latin/SKILL.md", new byte[] {'c', 'a', 'f', (byte) 0xe9, '\n'});
        Path badYaml = write("yaml/SKILL.md", "---\nname: [unclosed\n---\nbody\n");
        Path listYaml = write("list/SKILL.md", "---\n- a\n- b\n---\nbody\n");
        Path badTriggers = write("trig/SKILL.md", "---\nname: trig\ntriggers: {a: 1}\n---\nbody\n");
        Path badJson = write("x/broken.skill.json", "{\"name\": ");
        Path loop = root.resolve("loop/SKILL.md");
        Files.createDirectories(loop.getParent());
        Files.createSymbolicLink(loop, loop);
        Files.createSymbolicLink(root.resolve("loop/again"), root.resolve("loop")); // a folder link cycle
        write("d1/d2/d3/d4/SKILL.md", "---\nname: deep\n---\ntoo deep\n");

        SkillCatalog c = SkillCatalog.scan(List.of(root), new SkillLimits(3, 65_536, 20_000));

        assertThat(c.skills()).extracting(SkillDocument::name).containsExactly("good");
        assertThat(c.skippedFiles().get(huge)).contains("larger than 65536 bytes");
        assertThat(c.skippedFiles().get(binary)).contains("binary file");
        assertThat(c.skippedFiles().get(latin1)).contains("not valid UTF-8");
        assertThat(c.skippedFiles().get(badYaml)).startsWith("cannot be read");
        assertThat(c.skippedFiles().get(listYaml)).contains("front matter must be a mapping");
        assertThat(c.skippedFiles().get(badTriggers)).contains("triggers must be");
        assertThat(c.skippedFiles().get(badJson)).startsWith("cannot be read");
        assertThat(c.skippedFiles().get(loop)).contains("cannot be read");
        // depth 3 does not reach d1/d2/d3/d4, and says nothing about it
        assertThat(c.skippedFiles()).doesNotContainKey(root.resolve("d1/d2/d3/d4/SKILL.md"));
        assertThat(SkillCatalog.scan(List.of(root), new SkillLimits(4, 65_536, 20_000)).find("deep")).isNotNull();
    }

    @Test
    void frontMatterWithoutItsClosingLine_isReadAsText_andTriggersMayBeACommaString() throws IOException {
        write("open/SKILL.md", "---\nname: never closed\n\nbody\n");
        write("t/SKILL.md", "---\nname: t\ntriggers: 'one, two ,, three'\n---\nbody\n");
        SkillCatalog c = SkillCatalog.scan(List.of(root));
        assertThat(c.find("open").text()).contains("name: never closed");
        assertThat(c.find("t").triggers()).containsExactly("one", "two", "three");
        assertThat(c.find("t").relativePath()).isEqualTo("t/SKILL.md");
    }

    @Test
    void moreThanTheSkillBound_areSkippedWithAReason() throws IOException {
        for (int i = 0; i < SkillScan.MAX_SKILLS + 3; i++) {
            write(String.format("s%04d.skill.yaml", i), "name: s" + i + "\n");
        }
        SkillCatalog c = SkillCatalog.scan(List.of(root));
        assertThat(c.skills()).hasSize(SkillScan.MAX_SKILLS);
        assertThat(c.skippedFiles()).hasSize(3).allSatisfy((p, why) -> assertThat(why).contains("more than 1000"));
    }
}
