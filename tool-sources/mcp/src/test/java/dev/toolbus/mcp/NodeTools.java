package dev.toolbus.mcp;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Installs the Node side of the tests: the example client project of docs/examples/mcp-client (its
 * package.json pins @modelcontextprotocol/sdk and, as a dev dependency, server-everything) is
 * copied to the gitignored {@code .tools/mcp-node} folder at the repository root and installed there
 * with {@code npm install --no-audit --no-fund}, once; the test script src/test/node/conversation.mjs
 * is copied next to it. Tests are skipped, with a message, only when
 * npm itself is missing; a failing install fails them.
 */
final class NodeTools {

    private static Path installed;

    private NodeTools() {
    }

    /** The repository root: the first parent holding docs/examples/mcp-client. */
    static Path repoRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("docs/examples/mcp-client/package.json"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("docs/examples/mcp-client not found above " + Path.of("").toAbsolutePath());
        }
        return p;
    }

    static boolean onPath(String program) {
        try {
            Process p = new ProcessBuilder(program, "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The installed folder (with node_modules and client.mjs); skips the test when npm is missing. */
    static synchronized Path install() throws IOException, InterruptedException {
        assumeTrue(onPath("npm") && onPath("node"), "npm/node not found on PATH: the MCP tests with Node peers are skipped");
        if (installed != null) {
            return installed;
        }
        Path root = repoRoot();
        Path example = root.resolve("docs/examples/mcp-client");
        Path dir = root.resolve(".tools/mcp-node");
        Files.createDirectories(dir);
        byte[] pkg = Files.readAllBytes(example.resolve("package.json"));
        Path target = dir.resolve("package.json");
        boolean same = Files.exists(target) && Arrays.equals(pkg, Files.readAllBytes(target));
        Files.copy(example.resolve("client.mjs"), dir.resolve("client.mjs"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(root.resolve("tool-sources/mcp/src/test/node/conversation.mjs"), dir.resolve("conversation.mjs"),
                StandardCopyOption.REPLACE_EXISTING);
        boolean present = Files.isDirectory(dir.resolve("node_modules/@modelcontextprotocol/sdk"))
                && Files.isDirectory(dir.resolve("node_modules/@modelcontextprotocol/server-everything"));
        if (!same || !present) {
            Files.write(target, pkg);
            Process p = new ProcessBuilder("npm", "install", "--no-audit", "--no-fund")
                    .directory(dir.toFile()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException("npm install failed in " + dir + ":\n" + out);
            }
        }
        installed = dir;
        return dir;
    }

    /** The java launcher of this JVM. */
    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** This JVM's class path (surefire sets it to the test class path). */
    static String classpath() {
        return System.getProperty("java.class.path");
    }

    /** The command that starts an MCP server main class of this module over stdio. */
    static List<String> javaMain(String mainClass, String... args) {
        List<String> cmd = new java.util.ArrayList<>(List.of(java(), "-Xshare:auto", "-XX:TieredStopAtLevel=1",
                "-cp", classpath(), mainClass));
        cmd.addAll(List.of(args));
        return cmd;
    }
}
