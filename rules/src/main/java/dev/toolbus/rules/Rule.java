package dev.toolbus.rules;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One rule as written in {@code toolbus.yaml}, not yet compiled ({@link RuleSet} compiles it).
 *
 * <pre>{@code
 * Rule r = Rule.builder("big-transfers-need-the-owner")
 *     .tools("transfer")
 *     .when("args.amount > 100 && ctx.permission != 'owner'")
 *     .then(RuleAction.ASK)
 *     .message("Transfers over 100 need the owner's approval.")
 *     .build();
 * }</pre>
 *
 * @param name unique in its rule set (case ignored), used in messages and metric tags
 * @param tools the tools it applies to: names, {@code *} globs, plugin ids, {@code group:<name>},
 *     {@code group:plugins}, matched as the policy's restricting lists match (case ignored; a renamed
 *     tool also by its original and {@code <plugin>:<tool>} names)
 * @param when a CEL expression over {@code args}, {@code ctx}, {@code tool}, {@code turn} and
 *     {@code caller} that must type-check to {@code bool}
 * @param then what a match does
 * @param message shown with a deny or in the approval request; {@code ""} for the default text
 */
public record Rule(String name, List<String> tools, String when, RuleAction then, String message) {

    /** The longest rule name. */
    public static final int MAX_NAME_CHARS = 128;

    /**
     * @throws IllegalArgumentException when the name is blank or longer than {@link #MAX_NAME_CHARS},
     *     {@code tools} is empty or has a blank entry, or {@code when} is blank
     */
    public Rule {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(tools, "tools");
        Objects.requireNonNull(when, "when");
        Objects.requireNonNull(then, "then");
        name = name.strip();
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a rule needs a name");
        }
        if (name.length() > MAX_NAME_CHARS) {
            throw new IllegalArgumentException("rule name longer than " + MAX_NAME_CHARS + " characters: " + name);
        }
        List<String> ts = new ArrayList<>(tools.size());
        for (String t : tools) {
            if (t == null || t.isBlank()) {
                throw new IllegalArgumentException("rule '" + name + "': tools has a blank entry");
            }
            ts.add(t.strip());
        }
        if (ts.isEmpty()) {
            throw new IllegalArgumentException("rule '" + name + "': tools is empty (write [\"*\"] for every tool)");
        }
        tools = List.copyOf(ts);
        if (when.isBlank()) {
            throw new IllegalArgumentException("rule '" + name + "': when is empty");
        }
        message = message == null ? "" : message.strip();
    }

    /** A builder for a rule of this name. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** Builds a {@link Rule}; {@link #build()} validates. */
    public static final class Builder {
        private final String name;
        private final List<String> tools = new ArrayList<>();
        private String when;
        private RuleAction then;
        private String message = "";

        private Builder(String name) {
            this.name = name;
        }

        /** Adds tool patterns. */
        public Builder tools(String... patterns) {
            return tools(List.of(patterns));
        }

        /** Adds tool patterns. */
        public Builder tools(List<String> patterns) {
            for (String p : patterns) {
                tools.add(p);
            }
            return this;
        }

        /** The CEL condition. */
        public Builder when(String expression) {
            this.when = expression;
            return this;
        }

        /** What a match does. */
        public Builder then(RuleAction action) {
            this.then = action;
            return this;
        }

        /** The message of a deny or an approval request. */
        public Builder message(String message) {
            this.message = message;
            return this;
        }

        /**
         * @throws IllegalArgumentException as {@link Rule#Rule} does
         * @throws NullPointerException when {@code when} or {@code then} was not given
         */
        public Rule build() {
            return new Rule(name, tools, Objects.requireNonNull(when, "when"), Objects.requireNonNull(then, "then"),
                    message);
        }
    }
}
