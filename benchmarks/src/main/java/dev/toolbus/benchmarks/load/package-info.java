/**
 * End-to-end load harness on real brokers: turns published as a bot core publishes them, executed by
 * toolbus server processes or by a raw client loop (the ceiling), results read back, calls/s and turn
 * latency measured. Entry point: {@link dev.toolbus.benchmarks.load.LoadHarness}; run through
 * {@code scripts/load.sh}. Not a JMH benchmark.
 */
package dev.toolbus.benchmarks.load;
