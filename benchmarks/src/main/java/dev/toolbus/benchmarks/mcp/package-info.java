/**
 * The cost toolbus adds to an MCP tool call: the executor with McpToolSource against the MCP Java SDK
 * client alone, on the same server and transport. See docs/benchmarks.md.
 */
package dev.toolbus.benchmarks.mcp;
