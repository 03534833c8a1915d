/** The stdio bus: JSON lines on stdin in, JSON lines on stdout out (the sidecar mode). */
package dev.toolbus.assembly.stdio;
