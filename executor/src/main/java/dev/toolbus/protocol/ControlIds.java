package dev.toolbus.protocol;

/**
 * The ids of pending approvals ({@code ap-<instance>-<n>}) and questions ({@code in-<instance>-<n>}).
 * The instance part tells a bus adapter that shares control events across instances which instance
 * owns the id.
 */
public final class ControlIds {

    /** Prefix of approval ids. */
    public static final String APPROVAL = "ap";
    /** Prefix of input ids. */
    public static final String INPUT = "in";

    private ControlIds() {
    }

    /** The id {@code <prefix>-<instanceId>-<n>}. */
    public static String of(String prefix, String instanceId, long n) {
        return prefix + '-' + instanceId + '-' + n;
    }

    /**
     * The instance part of an approval or input id, or {@code null} when the id is not of that shape.
     */
    public static String instanceOf(String id) {
        if (id == null || !(id.startsWith(APPROVAL + "-") || id.startsWith(INPUT + "-"))) {
            return null;
        }
        int first = id.indexOf('-');
        int last = id.lastIndexOf('-');
        if (last <= first + 1 || last == id.length() - 1) {
            return null;
        }
        for (int i = last + 1; i < id.length(); i++) {
            if (id.charAt(i) < '0' || id.charAt(i) > '9') {
                return null;
            }
        }
        return id.substring(first + 1, last);
    }
}
