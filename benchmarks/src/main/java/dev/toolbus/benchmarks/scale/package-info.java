/**
 * Memory and scale runs against a real {@code toolbus serve} process: floods of one-call turns through
 * the stdio sidecar and the gateway, many distinct streams, and many idle WebSocket connections, each
 * measured by the server's live set after a full collection ({@link dev.toolbus.benchmarks.scale.ScaleHarness};
 * {@code scripts/scale.sh}).
 */
package dev.toolbus.benchmarks.scale;
