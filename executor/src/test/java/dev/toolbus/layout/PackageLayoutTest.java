package dev.toolbus.layout;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The house rules of the package layout, read from every module's main sources: no package cycle,
 * no use of another module's {@code internal} packages, and every public type of the executor module
 * either documented (API) or under an {@code internal} package (not API).
 */
class PackageLayoutTest {

    private static Path root;
    private static PackageGraph graph;

    @BeforeAll
    static void readRepository() {
        root = repositoryRoot();
        graph = PackageGraph.ofRepository(root);
    }

    /** The checkout's root: the nearest folder upwards whose pom.xml lists the executor module. */
    static Path repositoryRoot() {
        Path p = Path.of("").toAbsolutePath();
        for (Path d = p; d != null; d = d.getParent()) {
            Path pom = d.resolve("pom.xml");
            try {
                if (Files.isRegularFile(pom) && Files.readString(pom).contains("<module>executor</module>")) {
                    return d;
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("no repository root above " + p);
    }

    @Test
    void theRepositoryIsRead() {
        // guards the checks below against passing on an empty read
        assertThat(graph.packages()).containsKeys("dev.toolbus.executor", "dev.toolbus.protocol", "dev.toolbus.tool",
                "dev.toolbus.config", "dev.toolbus.gateway");
        assertThat(graph.sourcesOf("executor")).hasSizeGreaterThan(100);
        assertThat(graph.edges()).isNotEmpty();
    }

    @Test
    void noPackageCycle() {
        List<String> report = new ArrayList<>();
        for (List<String> c : graph.cycles()) {
            report.add("cycle among " + c + ":\n" + graph.cycleThrough(c).stream()
                    .map(e -> "  " + e.from() + " -> " + e.to() + " by " + e.files())
                    .collect(Collectors.joining("\n")));
        }
        assertThat(report).as("package cycles").isEmpty();
    }

    @Test
    void noModuleUsesAnotherModulesInternalPackages() {
        assertThat(graph.internalUsesAcrossModules()).as("uses of *.internal* packages from another module").isEmpty();
    }

    @Test
    void everyPublicTypeOfTheExecutorModuleIsDocumentedOrInternal() {
        List<String> undocumented = new ArrayList<>();
        int checked = 0;
        for (PackageGraph.Source s : graph.sourcesOf("executor")) {
            PackageGraph.PublicType t = PackageGraph.publicType(s);
            if (t == null || PackageGraph.isInternal(s.pkg())) {
                continue;
            }
            checked++;
            if (!t.documented()) {
                undocumented.add(s.pkg() + "." + t.name());
            }
        }
        assertThat(checked).isGreaterThan(50);
        assertThat(undocumented).as("public types without Javadoc outside internal packages").isEmpty();
    }

    @Test
    void everyPackageOfTheExecutorModuleSaysWhatItHolds() {
        List<String> missing = new ArrayList<>();
        for (String pkg : graph.packages().keySet()) {
            if (!graph.packages().get(pkg).contains("executor")) {
                continue;
            }
            Path info = root.resolve("executor/src/main/java").resolve(pkg.replace('.', '/')).resolve("package-info.java");
            if (!Files.isRegularFile(info)) {
                missing.add(pkg);
            }
        }
        assertThat(missing).as("executor packages without package-info.java").isEmpty();
    }

    // the analysis itself, on small made-up trees

    @Test
    void aCycleIsFoundAndNamedWithTheFilesThatMakeEachEdge() {
        PackageGraph g = PackageGraph.of(Map.of(
                "core/src/main/java/a/A.java", "package a;\nimport b.B;\nclass A { B b; }",
                "core/src/main/java/b/B.java", "package b;\nclass B { c.C c; }",
                "core/src/main/java/c/C.java", "package c;\nimport static a.A.x;\nclass C { }",
                "core/src/main/java/d/D.java", "package d;\nimport a.A;\nclass D { }"));
        assertThat(g.cycles()).containsExactly(List.of("a", "b", "c"));
        assertThat(g.cycleThrough(List.of("a", "b", "c")))
                .extracting(e -> e.from() + ">" + e.to() + e.files())
                .containsExactly("a>b[core:A]", "b>c[core:B]", "c>a[core:C]");
    }

    @Test
    void commentsAndStringsMakeNoEdge_qualifiedNamesInCodeDo() {
        PackageGraph g = PackageGraph.of(Map.of(
                "m/src/main/java/a/A.java", "package a;\n/** see {@link b.B} */\nclass A {\n"
                        + "  String s = \"b.B\"; // b.B\n  Object o = new b.B();\n}",
                "m/src/main/java/b/B.java", "package b;\n/** {@link a.A} */\nclass B { String t = \"a.A\"; }"));
        assertThat(g.cycles()).isEmpty();
        assertThat(g.edges()).extracting(e -> e.from() + ">" + e.to()).containsExactly("a>b");
    }

    @Test
    void anInternalPackageUsedFromAnotherModuleIsReported_fromItsOwnModuleItIsNot() {
        PackageGraph g = PackageGraph.of(Map.of(
                "core/src/main/java/x/internal/Helper.java", "package x.internal;\npublic class Helper { }",
                "core/src/main/java/x/Api.java", "package x;\nimport x.internal.Helper;\nclass Api { }",
                "other/src/main/java/y/User.java", "package y;\nclass User { x.internal.Helper h; }"));
        assertThat(g.internalUsesAcrossModules()).containsExactly("other:y.User uses x.internal (module core)");
    }

    @Test
    void aPublicTypeIsDocumentedOnlyByAJavadocCommentBeforeIt() {
        PackageGraph g = PackageGraph.of(Map.of(
                "m/src/main/java/a/Doc.java", "package a;\n\n/** Holds things. */\n@Deprecated\npublic final class Doc { }",
                "m/src/main/java/a/Plain.java", "package a;\n\n/* not javadoc */\npublic record Plain(int x) { }",
                "m/src/main/java/a/Hidden.java", "package a;\n\nfinal class Hidden { }"));
        Map<String, PackageGraph.PublicType> types = g.sourcesOf("m").stream()
                .filter(s -> PackageGraph.publicType(s) != null)
                .collect(Collectors.toMap(PackageGraph.Source::type, PackageGraph::publicType));
        assertThat(types).containsOnlyKeys("Doc", "Plain");
        assertThat(types.get("Doc").documented()).isTrue();
        assertThat(types.get("Plain").documented()).isFalse();
    }
}
