/**
 * stdio plugins: tools written in any language, run as child processes that read requests from stdin
 * and write answers to stdout, one JSON object per line. {@link dev.toolbus.plugins.stdio.StdioPlugins}
 * starts the plugins of a folder (one subfolder with a {@code plugin.json}
 * {@link dev.toolbus.plugins.stdio.PluginManifest manifest} each) and returns a
 * {@link dev.toolbus.plugins.stdio.StdioPluginHost} whose tools run through the executor like any other:
 * the executor's timeout cancels a call, which stops the plugin process; the next call starts it again.
 */
package dev.toolbus.plugins.stdio;
