package dev.toolbus.result;

/**
 * Recognises the image formats an LLM request accepts (png, jpeg, gif, webp) from their first bytes.
 * The declared MIME type is never trusted for the image part, as in MaiBot.
 */
final class ImageSniffer {

    /** Bytes needed to recognise every supported format. */
    static final int HEAD = 12;

    private ImageSniffer() {
    }

    /**
     * The MIME type of the image whose first bytes are {@code head[0..length)}, or {@code null} when
     * the bytes are not a supported image.
     */
    static String mimeType(byte[] head, int length) {
        if (starts(head, length, 0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a)) {
            return "image/png";
        }
        if (starts(head, length, 0xff, 0xd8, 0xff)) {
            return "image/jpeg";
        }
        if (starts(head, length, 'G', 'I', 'F', '8') && length >= 6
                && (head[4] == '7' || head[4] == '9') && head[5] == 'a') {
            return "image/gif";
        }
        if (starts(head, length, 'R', 'I', 'F', 'F') && length >= 12
                && head[8] == 'W' && head[9] == 'E' && head[10] == 'B' && head[11] == 'P') {
            return "image/webp";
        }
        return null;
    }

    private static boolean starts(byte[] head, int length, int... magic) {
        if (length < magic.length) {
            return false;
        }
        for (int i = 0; i < magic.length; i++) {
            if ((head[i] & 0xff) != magic[i]) {
                return false;
            }
        }
        return true;
    }
}
