/**
 * The cost toolbus adds to a stdio plugin call: the example echo plugins through the executor and the
 * plugin host, against a hand-written NDJSON client of the same plugin. See docs/benchmarks.md.
 */
package dev.toolbus.benchmarks.stdio;
