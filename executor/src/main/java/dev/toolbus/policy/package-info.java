/**
 * API: configured tool policy: which tools a session sees and may call, decided by one resolution for
 * listing and execution. Entry points: {@link dev.toolbus.policy.PolicyConfig} (the rules),
 * {@link dev.toolbus.policy.ToolPolicies} (builds a policy over a registry, and a switchable holder
 * for hot reload), {@link dev.toolbus.policy.ToolSearch} (the built-in {@code tool_search} tool for
 * deferred tools). docs/policy.md states the rules with worked examples.
 */
package dev.toolbus.policy;
