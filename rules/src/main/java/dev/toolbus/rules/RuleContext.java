package dev.toolbus.rules;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The session a call comes from, as the {@code ctx} variable shows it: every field a string,
 * {@code ""} when the turn did not say. The same for every call of a turn: build it once per turn.
 *
 * <ul>
 *   <li>{@code permission} is the level the policy reads: {@code member}, {@code admin}, {@code owner}
 *       or {@code master}; missing or unknown reads as {@code member}, as in the policy;</li>
 *   <li>{@code channel} is the context's channel, or when that is empty the stream id's prefix before
 *       its first {@code :} (as the policy reads it).</li>
 * </ul>
 */
public final class RuleContext {

    /** The permission ladder, lowest first. */
    public static final List<String> LEVELS = List.of("member", "admin", "owner", "master");

    /** A context with nothing known. */
    public static final RuleContext EMPTY = builder().build();

    private final MapValue value;

    private RuleContext(Builder b) {
        String channel = b.channel;
        if (channel.isEmpty() && b.stream.indexOf(':') > 0) {
            channel = b.stream.substring(0, b.stream.indexOf(':'));
        }
        String level = b.permission.toLowerCase(Locale.ROOT);
        this.value = new MapValue.Fixed(Map.of("user", b.user, "permission", LEVELS.contains(level) ? level : "member", "group", b.group,
                "platform", b.platform, "channel", channel, "agent", b.agent, "stream", b.stream));
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A field's value ({@code user}, {@code permission}, …); {@code ""} for an unknown field. */
    public String get(String field) {
        Object v = value.get(field);
        return v == null ? "" : (String) v;
    }

    /** The {@code ctx} variable's value. */
    MapValue value() {
        return value;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RuleContext c && value.equals(c.value);
    }

    @Override
    public int hashCode() {
        return value.hashCode();
    }

    @Override
    public String toString() {
        return "RuleContext" + new java.util.TreeMap<>(value);
    }

    /** Builds a {@link RuleContext}; {@code null} means unknown ({@code ""}); values are stripped. */
    public static final class Builder {
        private String user = "";
        private String permission = "";
        private String group = "";
        private String platform = "";
        private String channel = "";
        private String agent = "";
        private String stream = "";

        private Builder() {
        }

        public Builder user(String v) {
            user = s(v);
            return this;
        }

        public Builder permission(String v) {
            permission = s(v);
            return this;
        }

        public Builder group(String v) {
            group = s(v);
            return this;
        }

        public Builder platform(String v) {
            platform = s(v);
            return this;
        }

        public Builder channel(String v) {
            channel = s(v);
            return this;
        }

        public Builder agent(String v) {
            agent = s(v);
            return this;
        }

        public Builder stream(String v) {
            stream = s(v);
            return this;
        }

        public RuleContext build() {
            return new RuleContext(this);
        }

        private static String s(String v) {
            return v == null ? "" : v.strip();
        }
    }
}
