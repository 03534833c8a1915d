package dev.toolbus.protocol;

/**
 * One media index entry of a tool result: the follow-up {@code user_message} with
 * {@code message_id == index} carries the item.
 *
 * @param index {@code tool_result:<tool_call_id>:<n>}, n counted from 1 over all content items
 * @param type image, audio, resource_link, resource or binary
 * @param mimeType the MIME type, or {@code null}
 * @param name the item's name, or {@code null}
 */
public record MediaRef(String index, String type, String mimeType, String name) {
}
