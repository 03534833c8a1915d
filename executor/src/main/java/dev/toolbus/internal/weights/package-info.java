/**
 * Not API: estimated heap weights of results and events, shared by the engine's cache and the turn
 * ledger so both bound themselves by bytes the same way. May change without notice.
 */
package dev.toolbus.internal.weights;
