/**
 * Turn state: what a turn's outcome depends on beyond its own run, consulted before it runs and
 * recorded after (today idempotent turns; the call journal and the turn-state SPI of the next
 * release join here). API: {@link dev.toolbus.executor.state.TurnLedgerSettings}. Not API: {@link
 * dev.toolbus.executor.state.TurnStateStep}, the public entry the engine uses, and the package-private
 * in-memory ledger, admission order and meters behind it.
 */
package dev.toolbus.executor.state;
