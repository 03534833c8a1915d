package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code documents.autoActivate} and {@code documents.triggers}, with their fallbacks. */
class DocumentsSectionTest {

    private static ConfigLoader.Loaded parse(String yaml) {
        return ConfigLoader.parse(yaml, Map.<String, String>of()::get);
    }

    @Test
    void defaults_honourTheFilesAutoActivate_withNoTriggers() {
        DocumentsConfig d = parse("{}").config().documents();
        assertThat(d.fileAutoActivate()).isTrue();
        assertThat(d.autoActivate()).isEmpty();
        assertThat(d.triggers()).isEmpty();
    }

    @Test
    void autoActivate_takesABooleanOrNames_andTriggersAListOrACommaString() {
        ConfigLoader.Loaded l = parse("""
                documents:
                  mode: explicit
                  autoActivate: [release-notes, deploy]
                  triggers:
                    pdf-tools: [pdf, 表单]
                    deploy: 'ship, release'
                """);
        DocumentsConfig d = l.config().documents();
        assertThat(l.warnings()).isEmpty();
        assertThat(d.mode()).isEqualTo("explicit");
        assertThat(d.fileAutoActivate()).isTrue();
        assertThat(d.autoActivate()).containsExactly("release-notes", "deploy");
        assertThat(d.triggers()).containsExactly(Map.entry("pdf-tools", List.of("pdf", "表单")),
                Map.entry("deploy", List.of("ship", "release")));
        assertThat(parse("documents: {autoActivate: false}").config().documents().fileAutoActivate()).isFalse();
    }

    @Test
    void theEffectiveYaml_loadsBackToTheSameDocuments() {
        for (String yaml : List.of("documents: {autoActivate: [a, b], triggers: {a: [xx, yy]}, mode: all}",
                "documents: {autoActivate: false}", "{}")) {
            Config c = parse(yaml).config();
            ConfigLoader.Loaded again = parse(ConfigLoader.effectiveYaml(c));
            assertThat(again.config().documents()).as(yaml).isEqualTo(c.documents());
        }
    }

    @Test
    void nonsense_fallsBackWithWarnings() {
        ConfigLoader.Loaded l = parse("""
                documents:
                  autoActivate: {a: 1}
                  triggers: [pdf]
                """);
        DocumentsConfig d = l.config().documents();
        assertThat(d.autoActivate()).isEmpty();
        assertThat(d.fileAutoActivate()).isTrue();
        assertThat(d.triggers()).isEmpty();
        assertThat(String.join("\n", l.warnings())).contains("documents.autoActivate", "documents.triggers");

        ConfigLoader.Loaded shortWords = parse("documents: {triggers: {pdf-tools: [x, pdf, {no: 1}]}}");
        assertThat(shortWords.config().documents().triggers().get("pdf-tools")).containsExactly("pdf");
        assertThat(String.join("\n", shortWords.warnings())).contains("'x' is shorter than 2 characters",
                "documents.triggers.pdf-tools[2]");
    }

    @Test
    void nonsenseNumbersModeAndSwitch_fallBackAsTheTableSays() {
        ConfigLoader.Loaded low = parse("""
                documents:
                  enabled: sometimes
                  mode: clever
                  paths: data/skills
                  maxDepth: -1
                  maxFileBytes: 10
                  maxPromptChars: 5
                """);
        DocumentsConfig d = low.config().documents();
        assertThat(d.enabled()).isTrue();
        assertThat(d.mode()).isEqualTo("auto");
        assertThat(d.paths()).isEqualTo(DocumentsConfig.DEFAULTS.paths());
        assertThat(d.maxDepth()).isEqualTo(6);
        assertThat(d.maxFileBytes()).isEqualTo(1024);
        assertThat(d.maxPromptChars()).isEqualTo(1000);
        assertThat(String.join("\n", low.warnings())).contains("documents.enabled", "documents.mode", "documents.paths",
                "documents.maxDepth", "documents.maxFileBytes", "documents.maxPromptChars");

        ConfigLoader.Loaded high = parse("""
                documents:
                  maxDepth: 1000
                  maxFileBytes: 999999999999
                  maxPromptChars: 99999999999
                """);
        d = high.config().documents();
        assertThat(d.maxDepth()).isEqualTo(64);
        assertThat(d.maxFileBytes()).isEqualTo(64L * 1024 * 1024);
        assertThat(d.maxPromptChars()).isEqualTo(10_000_000);
        assertThat(high.warnings()).hasSize(3);

        ConfigLoader.Loaded words = parse("documents: {maxDepth: deep, maxFileBytes: big, maxPromptChars: .nan}");
        d = words.config().documents();
        assertThat(d.maxDepth()).isEqualTo(6);
        assertThat(d.maxFileBytes()).isEqualTo(65_536);
        assertThat(d.maxPromptChars()).isEqualTo(20_000);
        assertThat(words.warnings()).hasSize(3);
    }

    @Test
    void onlyScanSettings_needARestart() {
        DocumentsConfig a = DocumentsConfig.DEFAULTS;
        DocumentsConfig modeOnly = DocumentsConfig.builder().enabled(true).mode("all").paths(a.paths()).maxDepth(6)
                .maxFileBytes(65_536).maxPromptChars(20_000).fileAutoActivate(false).autoActivate(List.of("x"))
                .triggers(Map.of("x", List.of("yy"))).build();
        assertThat(a.scanDiffers(modeOnly)).isFalse();
        assertThat(a.scanDiffers(DocumentsConfig.builder().enabled(true).mode("auto").paths(List.of("other"))
                .maxDepth(6).maxFileBytes(65_536).maxPromptChars(20_000).build())).isTrue();
    }
}
