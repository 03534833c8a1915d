package dev.toolbus.bus.tck;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random and mutated inbound events for fuzz tests, from a seed (print it: a failure replays). Each
 * input is one line of UTF-8 bytes without a newline: a valid event of every kind the protocol has,
 * one with a hostile value put in (a huge exponent, deep nesting, a long string, a lone surrogate, a
 * duplicate key, a wrong type, a very long id, many calls), or one with its bytes mutated (flipped,
 * inserted, deleted, duplicated, cut, invalid UTF-8, NUL), or plain garbage.
 *
 * <pre>{@code
 * EventMutator m = new EventMutator(seed);
 * for (int i = 0; i < n; i++) {
 *     byte[] line = m.next();
 *     // send it; assert one answer per non-blank line, nothing escapes, nothing hangs
 * }
 * }</pre>
 */
public final class EventMutator {

    private static final String[] HOSTILE = {
        "1e999999999", "-1e-999999999", "123456789012345678901234567890123456789", "1.5e308", "-0.0",
        "\"\\ud800\"", "\"\\udfff\\ud800\"", "\"a\\u0000b\"", "null", "true", "[]", "{}", "\"\"",
        "{\"a\":1,\"a\":2}", "\"\\ud83d\\ude00 \\u4f60\\u597d\"", "[1,[2,[3,[4]]]]", "\"{\\\"x\\\":1,\\\"x\\\":2}\"",
        "\"{\\\"x\\\":\\\"\\\\ud800\\\"}\"", "\"{not json\"", "NaN", "Infinity",
    };

    private static final String[] NAMES = {"add", "echo", "sleep", "fail", "draw", "nope", "", "ADD", " echo "};

    private final Random random;
    private final int maxStringChars;
    private int count;

    /** A mutator whose hostile strings are at most 64 KiB. */
    public EventMutator(long seed) {
        this(seed, 64 * 1024);
    }

    /**
     * @param seed the seed of every choice
     * @param maxStringChars the longest generated string or id (keep it under the codec's event bound to
     *     exercise more than the size check)
     */
    public EventMutator(long seed, int maxStringChars) {
        this.random = new Random(seed);
        this.maxStringChars = maxStringChars;
    }

    /** How many inputs were made. */
    public int count() {
        return count;
    }

    /** The next input: one line, never containing {@code \n}. */
    public byte[] next() {
        count++;
        byte[] out = switch (random.nextInt(10)) {
            case 0, 1 -> valid().getBytes(StandardCharsets.UTF_8);
            case 2, 3, 4 -> hostile().getBytes(StandardCharsets.UTF_8);
            case 5, 6, 7 -> mutateBytes(random.nextBoolean() ? valid() : hostile());
            case 8 -> garbage();
            default -> deep().getBytes(StandardCharsets.UTF_8);
        };
        for (int i = 0; i < out.length; i++) {
            if (out[i] == '\n') {
                out[i] = ' ';
            }
        }
        return out;
    }

    /** A valid event of a random kind. */
    public String valid() {
        String stream = "fuzz:" + random.nextInt(50);
        String turn = "t" + count;
        return switch (random.nextInt(6)) {
            case 0 -> "{\"type\":\"tool_call\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turn
                    + "\",\"tool_call_id\":\"c1\",\"name\":\"add\",\"arguments\":{\"a\":" + random.nextInt(100)
                    + ",\"b\":" + random.nextInt(100) + "}}";
            case 1 -> "{\"type\":\"tool_calls\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turn
                    + "\",\"calls\":[" + calls(1 + random.nextInt(4)) + "],\"context\":{\"user_id\":\"u"
                    + random.nextInt(5) + "\",\"permission\":\"" + (random.nextBoolean() ? "member" : "admin") + "\"}}";
            case 2 -> "{\"type\":\"list_tools\",\"stream_id\":\"" + stream + "\",\"request_id\":\"r" + count
                    + "\",\"format\":\"" + new String[] {"openai", "anthropic", "mcp"}[random.nextInt(3)] + "\"}";
            case 3 -> "{\"type\":\"tool_calls\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turn
                    + "\",\"calls\":[{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"echo\","
                    + "\"arguments\":\"{\\\"text\\\":\\\"hi\\\"}\"}}]}";
            case 4 -> "{\"type\":\"tool_call\",\"stream_id\":\"" + stream + "\",\"name\":\"echo\",\"arguments\":"
                    + "{\"text\":\"" + "x".repeat(random.nextInt(200)) + "\"}}";
            default -> "{\"type\":\"tool_calls\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turn
                    + "\",\"calls\":[]}";
        };
    }

    private String calls(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                sb.append(',');
            }
            String name = NAMES[random.nextInt(NAMES.length)];
            String args = switch (name.strip().toLowerCase(java.util.Locale.ROOT)) {
                case "add" -> "{\"a\":" + random.nextInt(9) + ",\"b\":" + random.nextInt(9) + "}";
                case "sleep" -> "{\"ms\":" + random.nextInt(20) + "}";
                case "echo" -> "{\"text\":\"e" + i + "\"}";
                default -> "{}";
            };
            sb.append("{\"tool_call_id\":\"c").append(i).append("\",\"name\":\"").append(name)
                    .append("\",\"arguments\":").append(args).append('}');
        }
        return sb.toString();
    }

    /** A valid-looking event with one hostile value, id or shape. */
    public String hostile() {
        String stream = "fuzz:h" + random.nextInt(20);
        String value = random.nextInt(4) == 0 ? "\"" + "s".repeat(random.nextInt(maxStringChars)) + "\""
                : HOSTILE[random.nextInt(HOSTILE.length)];
        return switch (random.nextInt(9)) {
            case 0 -> "{\"type\":\"tool_call\",\"stream_id\":\"" + stream + "\",\"name\":\"echo\",\"arguments\":{\"text\":"
                    + value + "}}";
            case 1 -> "{\"type\":\"tool_call\",\"stream_id\":\"" + stream + "\",\"name\":\"add\",\"arguments\":{\"a\":"
                    + value + ",\"b\":1}}";
            case 2 -> "{\"type\":\"tool_call\",\"stream_id\":" + value + ",\"name\":\"echo\",\"arguments\":{}}";
            case 3 -> "{\"type\":" + value + ",\"stream_id\":\"" + stream + "\"}";
            case 4 -> "{\"type\":\"tool_call\",\"stream_id\":\"" + stream + "\",\"tool_call_id\":\""
                    + "i".repeat(random.nextInt(Math.min(maxStringChars, 4096))) + "\",\"name\":\"echo\"}";
            case 5 -> "{\"type\":\"tool_calls\",\"stream_id\":\"" + stream + "\",\"calls\":["
                    + "{},".repeat(random.nextInt(400)) + "{}]}";
            case 6 -> "{\"type\":\"tool_call\",\"stream_id\":\"" + stream + "\",\"name\":\"echo\",\"arguments\":"
                    + value + "}";
            case 7 -> "{\"type\":\"list_tools\",\"stream_id\":\"" + stream + "\",\"format\":" + value
                    + ",\"context\":{\"agent_id\":" + value + "}}";
            default -> "{\"type\":\"tool_call\",\"stream_id\":\"" + stream + "\",\"name\":\"echo\",\"context\":"
                    + value + ",\"arguments\":{\"text\":\"x\"}}";
        };
    }

    private String deep() {
        int depth = 150 + random.nextInt(200);
        String open = random.nextBoolean() ? "[" : "{\"a\":";
        String close = open.equals("[") ? "]" : "}";
        return "{\"type\":\"tool_call\",\"stream_id\":\"fuzz:deep\",\"name\":\"echo\",\"arguments\":{\"x\":"
                + open.repeat(depth) + "1" + close.repeat(random.nextInt(4) == 0 ? depth / 2 : depth) + "}}";
    }

    private byte[] mutateBytes(String base) {
        byte[] b = base.getBytes(StandardCharsets.UTF_8);
        int rounds = 1 + random.nextInt(4);
        for (int r = 0; r < rounds && b.length > 0; r++) {
            int at = random.nextInt(b.length);
            b = switch (random.nextInt(7)) {
                case 0 -> {
                    b[at] = (byte) random.nextInt(256);
                    yield b;
                }
                case 1 -> insert(b, at, new byte[] {(byte) (0x80 + random.nextInt(64))});
                case 2 -> delete(b, at, 1 + random.nextInt(Math.min(16, b.length - at)));
                case 3 -> insert(b, at, slice(b, at, Math.min(b.length - at, 1 + random.nextInt(32))));
                case 4 -> slice(b, 0, at);
                case 5 -> insert(b, at, new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}); // a surrogate in UTF-8
                default -> insert(b, at, new byte[] {0});
            };
        }
        return b;
    }

    private byte[] garbage() {
        byte[] b = new byte[random.nextInt(300)];
        random.nextBytes(b);
        return b;
    }

    private static byte[] insert(byte[] b, int at, byte[] what) {
        byte[] out = new byte[b.length + what.length];
        System.arraycopy(b, 0, out, 0, at);
        System.arraycopy(what, 0, out, at, what.length);
        System.arraycopy(b, at, out, at + what.length, b.length - at);
        return out;
    }

    private static byte[] delete(byte[] b, int at, int n) {
        byte[] out = new byte[b.length - n];
        System.arraycopy(b, 0, out, 0, at);
        System.arraycopy(b, at + n, out, at, b.length - at - n);
        return out;
    }

    private static byte[] slice(byte[] b, int from, int n) {
        byte[] out = new byte[n];
        System.arraycopy(b, from, out, 0, n);
        return out;
    }

    /** Whether a line is blank as the stdio bus sees it (spaces, tabs, CR only): no answer is due. */
    public static boolean blank(byte[] line) {
        for (byte x : line) {
            if (x != ' ' && x != '\t' && x != '\r') {
                return false;
            }
        }
        return true;
    }

    /** Several inputs at once. */
    public List<byte[]> next(int n) {
        List<byte[]> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(next());
        }
        return out;
    }
}
