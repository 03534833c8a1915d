package dev.toolbus.mcp;

/**
 * The sample server plus {@link ConformanceTools}, for running {@code @modelcontextprotocol/conformance}
 * by hand, as docs/mcp.md describes: {@code java -cp CP dev.toolbus.mcp.ConformanceServerMain --http 3939},
 * then {@code bash scripts/lib/mcp-conformance.sh run http://127.0.0.1:3939/mcp OUTDIR}.
 * {@code ConformanceSuiteTest} does the same in CI.
 */
public final class ConformanceServerMain {

    private ConformanceServerMain() {
    }

    public static void main(String[] args) throws Exception {
        McpServerMain.run(args, ConformanceTools.all());
    }
}
