/**
 * Rules over the call: {@code rules:} in {@code toolbus.yaml}, each a CEL condition over the call's
 * arguments, its session, the tool, the calls so far in its turn and its caller, deciding
 * {@code ask}, {@code deny} or {@code allow}. {@link dev.toolbus.rules.RuleSet} compiles and
 * type-checks them once; {@link dev.toolbus.rules.ToolRules} evaluates the ones that can match one
 * tool. This module holds CEL (and through it protobuf, Guava and ANTLR) so the executor core does not.
 */
package dev.toolbus.rules;
