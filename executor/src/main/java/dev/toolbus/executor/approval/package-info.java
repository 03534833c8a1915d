/**
 * The approval step: when a call waits for a human yes. API: {@link
 * dev.toolbus.executor.approval.ApprovalSettings} and {@link dev.toolbus.executor.approval.ApprovalMode}
 * (what {@code ToolExecutor.Builder.approval} takes). Not API: {@link
 * dev.toolbus.executor.approval.ApprovalStep}, the public entry the engine makes the step through (a
 * {@code CallGate}), and the package-private machinery behind it (risk rules, pending requests,
 * session grants, argument summaries, meters).
 */
package dev.toolbus.executor.approval;
