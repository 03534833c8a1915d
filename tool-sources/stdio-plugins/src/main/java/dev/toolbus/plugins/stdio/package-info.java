/**
 * stdio plugins: tools written in any language, run as child processes that read requests from stdin
 * and write answers to stdout, one JSON object per line. {@link dev.toolbus.plugins.stdio.StdioPlugins}
 * starts the plugins of a folder (one subfolder with a {@code plugin.json}
 * {@link dev.toolbus.plugins.stdio.PluginManifest manifest} each, or a framework plugin of a
 * {@link dev.toolbus.plugins.stdio.PluginKind kind} run under its host) and returns a
 * {@link dev.toolbus.plugins.stdio.StdioPluginHost} whose tools run through the executor like any other:
 * a cancel or timeout sends the plugin a {@code cancel} for that call and kills the process only when
 * the call stays unanswered past its grace; the next call then starts a new one. While a call runs the
 * plugin may report progress, send messages and ask the user, through the call's
 * {@link dev.toolbus.tool.ToolContext}. {@link dev.toolbus.plugins.stdio.StdioPluginReloader} keeps a
 * folder in step with its contents.
 *
 * <p>Package-private: {@code PluginSupervisor} keeps one plugin running; {@code PluginProcess} is the OS
 * process (spawn, reader and writer threads, stop and kill of the process tree) and {@code PluginRpc}
 * its protocol side (request ids, waiting requests, answers by id, cancel and its grace, with
 * {@code CallMessages} for the plugin's messages during a call); {@code Permits} serializes the calls
 * of a plugin that is not concurrent; {@code Wire} holds the protocol's messages.
 */
package dev.toolbus.plugins.stdio;
