package dev.toolbus.result;

/** The content-item type vocabulary of MaiBot's host (which MCP content blocks also map to). */
final class ItemTypes {

    static final String TEXT = "text";
    static final String IMAGE = "image";
    static final String AUDIO = "audio";
    static final String RESOURCE_LINK = "resource_link";
    static final String RESOURCE = "resource";
    static final String BINARY = "binary";
    static final String UNKNOWN = "unknown";

    private ItemTypes() {
    }

    /** The type itself when it is known, else {@code unknown}. */
    static String normalise(String type) {
        return switch (type) {
            case TEXT, IMAGE, AUDIO, RESOURCE_LINK, RESOURCE, BINARY, UNKNOWN -> type;
            default -> UNKNOWN;
        };
    }

    /** Whether items of this (normalised) type are split into follow-up messages. */
    static boolean isMedia(String type) {
        return switch (type) {
            case IMAGE, AUDIO, RESOURCE_LINK, RESOURCE, BINARY -> true;
            default -> false;
        };
    }
}
