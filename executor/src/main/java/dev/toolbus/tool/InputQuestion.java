package dev.toolbus.tool;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A question a running tool asks ({@link ToolContext#ask(InputQuestion)}): a form (a message and,
 * optionally, a JSON Schema of the answer's content) or a URL the user is asked to visit (URL mode:
 * for credentials and payments, which must never pass through the conversation; the answer only says
 * whether the user went there: {@code accept}, {@code decline} or {@code cancel}, without content).
 *
 * <pre>{@code
 * ctx.ask(InputQuestion.builder("Which city?").schema(schema).key("city").build());
 * ctx.ask(InputQuestion.builder("Sign in to continue").url("https://auth.example/login?s=42").build());
 * }</pre>
 *
 * <p>The {@link #key() key} names the question where a protocol needs a name for it (an MCP
 * {@code input_required} result keys its requests); without one the question's input id is used.
 * It never reaches the bus.
 */
public final class InputQuestion {

    /** The longest {@link #url()} accepted. */
    public static final int MAX_URL_CHARS = 2048;

    private static final Pattern KEY = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    /** What is asked of the user. */
    public enum Mode {
        /** Answer a form (the message, and a schema of the content). */
        FORM,
        /** Visit a URL. */
        URL;

        /** The wire name: {@code form} or {@code url}. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final String message;
    private final JsonNode schema;
    private final Duration timeout;
    private final String key;
    private final String url;

    private InputQuestion(Builder b) {
        this.message = b.message;
        this.schema = b.schema;
        this.timeout = b.timeout;
        this.key = b.key;
        this.url = b.url;
    }

    /** Starts a builder for a question with this message. */
    public static Builder builder(String message) {
        return new Builder(message);
    }

    /** The question. */
    public String message() {
        return message;
    }

    /** The JSON Schema of the answer's content, or {@code null} (always {@code null} in URL mode). */
    public JsonNode schema() {
        return schema;
    }

    /** How long to wait, or {@code null} for the executor's default. */
    public Duration timeout() {
        return timeout;
    }

    /** The question's name for protocols that key questions, or {@code null}. */
    public String key() {
        return key;
    }

    /** The URL to visit in URL mode, else {@code null}. */
    public String url() {
        return url;
    }

    /** {@link Mode#URL} when a URL is set, else {@link Mode#FORM}. */
    public Mode mode() {
        return url == null ? Mode.FORM : Mode.URL;
    }

    @Override
    public String toString() {
        return "InputQuestion{" + mode().wireName() + (key == null ? "" : ", key=" + key) + '}';
    }

    /** Builder of {@link InputQuestion}; its setters validate. */
    public static final class Builder {
        private final String message;
        private JsonNode schema;
        private Duration timeout;
        private String key;
        private String url;

        private Builder(String message) {
            this.message = Objects.requireNonNull(message, "message");
        }

        /** The JSON Schema of the answer's content (an object schema); not with {@link #url}. */
        public Builder schema(JsonNode schema) {
            if (schema != null && !schema.isObject()) {
                throw new IllegalArgumentException("the schema of a question must be a JSON object");
            }
            this.schema = schema;
            return this;
        }

        /** How long to wait for the answer ({@code null}: the executor's default). */
        public Builder timeout(Duration timeout) {
            if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
                throw new IllegalArgumentException("timeout must be positive");
            }
            this.timeout = timeout;
            return this;
        }

        /** The question's name: 1 to 64 letters, digits, {@code _ . -}. */
        public Builder key(String key) {
            if (key != null && !KEY.matcher(key).matches()) {
                throw new IllegalArgumentException("a question key is 1 to 64 of A-Z a-z 0-9 _ . - : '" + key + "'");
            }
            this.key = key;
            return this;
        }

        /** Makes this a URL-mode question: the user is asked to visit {@code url} (http or https). */
        public Builder url(String url) {
            if (url != null) {
                if (url.length() > MAX_URL_CHARS) {
                    throw new IllegalArgumentException("a question's url is at most " + MAX_URL_CHARS + " characters");
                }
                URI u;
                try {
                    u = URI.create(url);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("not a URL: " + e.getMessage(), e);
                }
                String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
                if (!scheme.equals("https") && !scheme.equals("http") || u.getHost() == null) {
                    throw new IllegalArgumentException("a question's url must be an absolute http or https URL: " + url);
                }
            }
            this.url = url;
            return this;
        }

        /** The question. */
        public InputQuestion build() {
            if (url != null && schema != null) {
                throw new IllegalArgumentException("a URL-mode question has no schema: the answer has no content");
            }
            return new InputQuestion(this);
        }
    }
}
