/**
 * Helpers shared by toolbus modules. Not API: may change without notice.
 */
package dev.toolbus.internal;
