package dev.toolbus.bus.tck;

/**
 * One input a bus dead-lettered, as its fixture reads it back.
 *
 * @param event the input (or its first bytes), as text; null when it had none
 * @param reason why it was dead-lettered
 * @param source where it came from (stream or topic, with its entry id or partition and offset), or null
 * @param client the consumer or client that dead-lettered it, or null
 * @param deliveries how many times it was delivered, or null when not recorded
 */
public record DeadLetter(String event, String reason, String source, String client, String deliveries) {
}
