/**
 * API: the wire protocol: immutable event records and values ({@link dev.toolbus.protocol.InboundEvent} in,
 * {@link dev.toolbus.protocol.OutboundEvent} out) and their JSON codec
 * ({@link dev.toolbus.protocol.EventCodec}). JSON is snake_case; docs/protocol.md and the JSON Schemas
 * in docs/schemas/ describe every event.
 */
package dev.toolbus.protocol;
