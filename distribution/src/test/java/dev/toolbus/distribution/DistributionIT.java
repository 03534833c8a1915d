package dev.toolbus.distribution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built {@code toolbus-VERSION.tar.gz} untarred outside the checkout and run as a user without
 * Maven or a source tree would: {@code bin/toolbus} with nothing on {@code PATH} but {@code java} (or
 * only {@code JAVA_HOME}), from a working folder outside the checkout, with none of the checkout's
 * environment ({@code TOOLBUS_ROOT}, {@code TOOLBUS_HOSTS}).
 */
class DistributionIT {

    private static final String VERSION = System.getProperty("toolbus.version");
    private static final Path TARBALL = Path.of(System.getProperty("toolbus.distribution"));
    private static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");
    private static final long WAIT_S = 120;
    private static final AtomicInteger RUNS = new AtomicInteger();

    @TempDir
    static Path work;

    static Path home;

    @BeforeAll
    static void untar() throws Exception {
        assertThat(TARBALL).as("build it first: mvn -pl distribution -am package").isRegularFile();
        Path root = Path.of(System.getProperty("toolbus.root")).toRealPath();
        assertThat(work.toRealPath().startsWith(root)).as("untarred outside the checkout %s", root).isFalse();
        Process tar = new ProcessBuilder("tar", "xzf", TARBALL.toString(), "-C", work.toString())
                .redirectErrorStream(true).start();
        String out = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(tar.waitFor(WAIT_S, TimeUnit.SECONDS)).isTrue();
        assertThat(tar.exitValue()).as(out).isZero();
        home = work.resolve("toolbus-" + VERSION);
    }

    @Test
    void holdsTheLauncherTheJarASampleConfigTheHostsAndTheLicences() throws IOException {
        assertThat(Files.getPosixFilePermissions(home.resolve("bin/toolbus")))
                .contains(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OTHERS_EXECUTE);
        try (var lib = Files.list(home.resolve("lib"))) {
            assertThat(lib.map(p -> p.getFileName().toString())).containsExactly("toolbus-server.jar");
        }
        assertThat(home.resolve("config/toolbus.yaml")).isRegularFile();
        assertThat(home.resolve("README.md")).isRegularFile();
        for (String f : List.of("hosts/maibot/host.py", "hosts/openclaw/host.mjs", "hosts/chatai/host.mjs",
                "hosts/node/register-shims.mjs", "hosts/python/pyproject.toml", "hosts/node/package.json",
                "hosts/go/go.mod")) {
            assertThat(home.resolve(f)).isRegularFile();
        }
        assertThat(home.resolve("hosts/python/tests")).doesNotExist();
        String thirdParty = Files.readString(home.resolve("LICENSES/THIRD-PARTY.txt"));
        assertThat(thirdParty)
                .contains("(org.apache.kafka:kafka-clients:")
                .contains("(io.netty:netty-buffer:")
                .contains("(com.fasterxml.jackson.core:jackson-databind:")
                .contains("(io.lettuce:lettuce-core:")
                .contains("(io.projectreactor:reactor-core:")
                .doesNotContain("dev.toolbus:")
                .doesNotContain("Unknown license");
        assertThat(home.resolve("LICENSES/reactor-core-jar/META-INF/LICENSE")).isRegularFile();
    }

    @Test
    void sampleToolsAnswerATurn_withJavaAloneOnThePath() throws Exception {
        Path path = pathOf("java", JAVA);
        assertThat(onPath(path.toString(), "mvn")).isEmpty();
        Run run = toolbus(Map.of("PATH", path.toString()),
                "{\"type\":\"tool_calls\",\"stream_id\":\"dist\",\"turn_id\":\"t1\",\"calls\":["
                        + "{\"tool_call_id\":\"c1\",\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":40}},"
                        + "{\"tool_call_id\":\"c2\",\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}]}\n",
                "serve", "--sample-tools", "--log-level", "warn");
        assertThat(run.exit).as(run.stderr).isZero();
        assertThat(run.stdout)
                .anySatisfy(l -> assertThat(l).contains("\"tool_call_id\":\"c1\"").contains("\"content\":\"{\\\"sum\\\": 42}\"")
                        .contains("\"is_error\":false"))
                .anySatisfy(l -> assertThat(l).contains("\"tool_call_id\":\"c2\"").contains("\"content\":\"hi\""))
                .anySatisfy(l -> assertThat(l).startsWith("{\"type\":\"turn_completed\"").contains("\"error_count\":0"));
    }

    @Test
    void javaHome_isUsedWhenSet() throws Exception {
        Run run = toolbus(Map.of("PATH", pathOf().toString(), "JAVA_HOME", System.getProperty("java.home")), "",
                "--version");
        assertThat(run.exit).as(run.stderr).isZero();
        assertThat(run.stdout).containsExactly("toolbus " + VERSION);
    }

    @Test
    void withoutJava_theLauncherSaysWhatIsMissing() throws Exception {
        Run run = toolbus(Map.of("PATH", pathOf().toString()), "", "--version");
        assertThat(run.exit).isEqualTo(1);
        assertThat(run.stdout).isEmpty();
        assertThat(run.stderr).contains("no Java runtime found").contains("Java 17");
    }

    @Test
    void aJavaHomeWithoutJava_isNamed() throws Exception {
        Path empty = Files.createDirectories(work.resolve("not-a-jdk-" + RUNS.incrementAndGet()));
        Run run = toolbus(Map.of("PATH", pathOf("java", JAVA).toString(), "JAVA_HOME", empty.toString()), "",
                "--version");
        assertThat(run.exit).isEqualTo(1);
        assertThat(run.stderr).contains("JAVA_HOME is " + empty).contains("is not a program");
    }

    @Test
    void aJavaOlderThan17_isRefusedWithItsVersion() throws Exception {
        Path old = work.resolve("old-java-" + RUNS.incrementAndGet());
        Files.writeString(old, "#!/bin/sh\necho 'java version \"1.8.0_402\"' >&2\n");
        assertThat(old.toFile().setExecutable(true)).isTrue();
        Run run = toolbus(Map.of("PATH", pathOf("java", old).toString()), "", "--version");
        assertThat(run.exit).isEqualTo(1);
        assertThat(run.stderr).contains("is Java 1;").contains("needs Java 17 or newer");
    }

    @Test
    void aSymlinkToTheLauncher_findsItsDistribution() throws Exception {
        Path readlink = onPath(System.getenv("PATH"), "readlink").orElseThrow();
        Path links = Files.createDirectories(work.resolve("links-" + RUNS.incrementAndGet()));
        Path link = Files.createSymbolicLink(links.resolve("toolbus"), home.resolve("bin/toolbus"));
        Run run = run(List.of(link.toString(), "--version"),
                Map.of("PATH", pathOf("java", JAVA, "readlink", readlink).toString()), "");
        assertThat(run.exit).as(run.stderr).isZero();
        assertThat(run.stdout).containsExactly("toolbus " + VERSION);
    }

    @Test
    void theSampleConfigIsValid() throws Exception {
        Run run = toolbus(Map.of("PATH", pathOf("java", JAVA).toString()), "", "check-config",
                home.resolve("config/toolbus.yaml").toString());
        assertThat(run.exit).as(run.stderr).isZero();
        assertThat(run.stderr).contains("is valid (0 warnings)");
    }

    /** A MaiBot plugin runs under the distribution's own hosts: no checkout is reachable to find others in. */
    @Test
    void aMaiBotPlugin_runsUnderTheShippedHost() throws Exception {
        Path python = Path.of("/usr/bin/python3");
        assumeTrue(Files.isExecutable(python), "needs /usr/bin/python3");
        Path plugin = Files.createDirectories(work.resolve("plugins-" + RUNS.incrementAndGet()).resolve("greeter"));
        Files.writeString(plugin.resolve("plugin.py"), """
                from maibot_sdk import MaiBotPlugin, Tool


                class GreeterPlugin(MaiBotPlugin):
                    @Tool("greet", description="Greets someone.",
                          parameters={"name": {"type": "string", "description": "who", "required": True}})
                    async def greet(self, name: str, **kwargs):
                        return {"success": True, "content": f"Hello, {name}!"}


                def create_plugin():
                    return GreeterPlugin()
                """);
        Run run = toolbus(Map.of("PATH", pathOf("java", JAVA, "python3", python).toString()),
                "{\"type\":\"tool_calls\",\"stream_id\":\"dist\",\"turn_id\":\"t1\",\"calls\":["
                        + "{\"tool_call_id\":\"c1\",\"name\":\"greet\",\"arguments\":{\"name\":\"Ann\"}}]}\n",
                "serve", "--plugins", plugin.getParent().toString(), "--log-level", "warn");
        assertThat(run.exit).as(run.stderr).isZero();
        assertThat(run.stdout).as(run.stderr)
                .anySatisfy(l -> assertThat(l).contains("\"tool_call_id\":\"c1\"").contains("\"content\":\"Hello, Ann!\"")
                        .contains("\"is_error\":false"));
    }

    /**
     * A folder holding, for each pair (name, program), a script of that name that runs the program: a
     * PATH with exactly those programs on it.
     */
    private static Path pathOf(Object... pairs) throws IOException {
        Path dir = Files.createDirectories(work.resolve("path-" + RUNS.incrementAndGet()));
        for (int i = 0; i < pairs.length; i += 2) {
            Path script = Files.writeString(dir.resolve((String) pairs[i]),
                    "#!/bin/sh\nexec '" + pairs[i + 1] + "' \"$@\"\n");
            assertThat(script.toFile().setExecutable(true)).isTrue();
        }
        return dir;
    }

    private static Optional<Path> onPath(String path, String program) {
        return Arrays.stream(path.split(File.pathSeparator)).filter(s -> !s.isEmpty())
                .map(d -> Path.of(d, program)).filter(Files::isExecutable).findFirst();
    }

    private static Run toolbus(Map<String, String> env, String stdin, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(home.resolve("bin/toolbus").toString());
        command.addAll(List.of(args));
        return run(command, env, stdin);
    }

    /** Runs a command with only the given environment (plus HOME), from a fresh folder outside the checkout. */
    private static Run run(List<String> command, Map<String, String> env, String stdin) throws Exception {
        int n = RUNS.incrementAndGet();
        Path dir = Files.createDirectories(work.resolve("run-" + n));
        Path in = Files.writeString(dir.resolve("stdin"), stdin);
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
                .redirectInput(in.toFile())
                .redirectOutput(dir.resolve("stdout").toFile())
                .redirectError(dir.resolve("stderr").toFile());
        Map<String, String> e = new HashMap<>(env);
        e.put("HOME", dir.toString());
        pb.environment().clear();
        pb.environment().putAll(e);
        Process p = pb.start();
        if (!p.waitFor(WAIT_S, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError(command + " did not finish within " + WAIT_S + " s: "
                    + Files.readString(dir.resolve("stderr")));
        }
        return new Run(p.exitValue(), Files.readAllLines(dir.resolve("stdout")), Files.readString(dir.resolve("stderr")));
    }

    private record Run(int exit, List<String> stdout, String stderr) {
    }
}
