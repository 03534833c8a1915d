/**
 * JMH benchmarks: the toolbus executor side by side with a hand-written Reactor pipeline and with the
 * tool dispatch of LangChain4j and Spring AI, all on one trivial tool, {@code echo(text) -> text},
 * called with the same JSON string. See docs/benchmarks.md for the command and the results.
 */
package dev.toolbus.benchmarks;
