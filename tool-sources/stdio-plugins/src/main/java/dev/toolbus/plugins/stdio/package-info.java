/**
 * stdio plugins: tools written in any language, run as child processes that read requests from stdin
 * and write answers to stdout, one JSON object per line. {@link dev.toolbus.plugins.stdio.StdioPlugins}
 * starts the plugins of a folder (one subfolder with a {@code plugin.json}
 * {@link dev.toolbus.plugins.stdio.PluginManifest manifest} each) and returns a
 * {@link dev.toolbus.plugins.stdio.StdioPluginHost} whose tools run through the executor like any other:
 * a cancel or timeout sends the plugin a {@code cancel} for that call and kills the process only when
 * the call stays unanswered past its grace; the next call then starts a new one. While a call runs the
 * plugin may report progress, send messages and ask the user, through the call's
 * {@link dev.toolbus.tool.ToolContext}.
 */
package dev.toolbus.plugins.stdio;
