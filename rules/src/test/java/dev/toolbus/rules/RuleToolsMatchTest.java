package dev.toolbus.rules;

import static dev.toolbus.rules.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A rule's {@code tools} match as the policy's restricting lists do. */
class RuleToolsMatchTest {

    private static boolean applies(String tools, ToolFacts t) {
        return applies(RuleSet.builder(), tools, t);
    }

    private static boolean applies(RuleSet.Builder b, String tools, ToolFacts t) {
        RuleSet s = b.rule(Fixtures.rule("r", tools, "true", RuleAction.DENY)).build();
        boolean listed = !s.forTool(t).isEmpty();
        assertThat(s.evaluate(t, Fixtures.call("{}"), RuleMetrics.NONE).denies()).isEqualTo(listed);
        return listed;
    }

    @Test
    void namesAndGlobs_caseIgnored() {
        assertThat(applies("transfer", tool("transfer"))).isTrue();
        assertThat(applies("Transfer", tool("TRANSFER"))).isTrue();
        assertThat(applies("transfer", tool("transfers"))).isFalse();
        assertThat(applies("*", tool("anything"))).isTrue();
        assertThat(applies("web_*", tool("web_fetch"))).isTrue();
        assertThat(applies("web_*", tool("fetch_web"))).isFalse();
        assertThat(applies("*_file", tool("write_file"))).isTrue();
        assertThat(applies("a*c", tool("abbc"))).isTrue();
        assertThat(applies("a.c", tool("abc"))).isFalse();
        assertThat(applies("echo,transfer", tool("transfer"))).isTrue();
    }

    @Test
    void pluginIds_andGroupPlugins() {
        ToolFacts recall = ToolFacts.builder("recall").pluginId("memory-lancedb").source("stdio").build();
        assertThat(applies("memory-lancedb", recall)).isTrue();
        assertThat(applies("memory-*", recall)).isTrue();
        assertThat(applies("group:plugins", recall)).isTrue();
        assertThat(applies("group:plugins", tool("echo"))).isFalse();
        assertThat(applies("group:plugins", ToolFacts.builder("x").source("mcp").build())).isTrue();
    }

    @Test
    void renamedTools_matchByOriginalAndPluginQualifiedNames() {
        ToolFacts renamed = ToolFacts.builder("ext__add").originalName("add").pluginId("ext").source("mcp").build();
        assertThat(applies("ext__add", renamed)).isTrue();
        assertThat(applies("add", renamed)).isTrue();
        assertThat(applies("ext:add", renamed)).isTrue();
        assertThat(applies("ext:*", renamed)).isTrue();
        assertThat(applies("ad*", renamed)).isTrue();
        // a <plugin>:<tool> alias answers only to globs with a ':'
        assertThat(applies("*:add", renamed)).isTrue();
        assertThat(applies("other:add", renamed)).isFalse();
        ToolFacts kept = ToolFacts.builder("scrape").pluginId("scraper").source("stdio").build();
        assertThat(applies("scraper:scrape", kept)).isTrue();
    }

    @Test
    void groups_configuredAndDeclared() {
        assertThat(applies(RuleSet.builder().group("Money", List.of("transfer", "refund_*")), "group:money",
                tool("refund_one"))).isTrue();
        assertThat(applies(RuleSet.builder().group("money", List.of("transfer")), "group:money", tool("echo")))
                .isFalse();
        ToolFacts declares = ToolFacts.builder("pay").groups(List.of("money")).build();
        assertThat(applies("group:money", declares)).isTrue();
        assertThat(applies("group:other", declares)).isFalse();
        // groups do not nest: a group: member is ignored
        assertThat(applies(RuleSet.builder().group("outer", List.of("group:money")), "group:outer", declares))
                .isFalse();
        // a group's members match plugin ids too
        ToolFacts recall = ToolFacts.builder("recall").pluginId("memory").source("stdio").build();
        assertThat(applies(RuleSet.builder().group("mem", List.of("memory")), "group:mem", recall)).isTrue();
    }
}
