/** The sample tools used by {@code toolbus demo}, {@code serve --sample-tools} and the tests. */
package dev.toolbus.assembly.samples;
