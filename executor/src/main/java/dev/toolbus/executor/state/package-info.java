/**
 * Turn state: what a turn's outcome depends on beyond its own run (idempotent turns, the call journal,
 * approval requests and questions with their answers, session grants, cut results), consulted before
 * and while it runs and recorded after. API: {@link dev.toolbus.executor.state.InMemoryTurnState} (the
 * in-memory {@code TurnState}) and {@link dev.toolbus.executor.state.TurnLedgerSettings}. Not API:
 * {@link dev.toolbus.executor.state.TurnStateStep}, the public entry the engine uses, and the
 * package-private in-memory facets, admission order and meters behind it.
 */
package dev.toolbus.executor.state;
