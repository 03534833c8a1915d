/**
 * Not API: helpers shared by the core's packages (JSON Schema checks, the trampoline); they may change
 * without notice, and no other module may use them (a test checks).
 */
package dev.toolbus.internal;
