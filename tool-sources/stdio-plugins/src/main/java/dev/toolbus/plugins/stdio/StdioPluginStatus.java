package dev.toolbus.plugins.stdio;

import java.util.List;

/**
 * A snapshot of one stdio plugin.
 *
 * @param id the plugin id
 * @param running whether a process is up and taking calls
 * @param pid the pid of that process, or -1
 * @param starts how many processes were started so far
 * @param failures failures since the last answered call (timeouts, crashes, failed starts); drives the backoff
 * @param tools the names of its tools
 * @param livePids every process of this plugin not yet gone, including ones being stopped
 * @param stderrDroppedLines stderr lines not logged because the plugin wrote more than its
 *     {@code stderrBytesPerSecond}, over all its processes
 * @param stderrLoggedBytes stderr bytes logged, over all its processes
 */
public record StdioPluginStatus(
        String id, boolean running, long pid, int starts, int failures, List<String> tools, List<Long> livePids,
        long stderrDroppedLines, long stderrLoggedBytes) {

    public StdioPluginStatus {
        tools = List.copyOf(tools);
        livePids = List.copyOf(livePids);
    }
}
