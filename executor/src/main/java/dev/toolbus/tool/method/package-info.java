/**
 * API: tools made from Java code. {@link dev.toolbus.tool.method.Tools} reads the {@code @Tool} and
 * {@code @Action} methods of an object, or wraps a function; a method's return value becomes a result as
 * {@link dev.toolbus.result.ForeignValues} maps foreign values (MaiBot's host rules).
 */
package dev.toolbus.tool.method;
