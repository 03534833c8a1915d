package dev.toolbus.rules;

import java.util.List;
import java.util.Objects;

/** Rules that cannot be compiled: every problem found, each naming its rule. */
public final class InvalidRulesException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /**
     * One problem.
     *
     * @param index the rule's position in the list (from 0)
     * @param rule the rule's name
     * @param message what is wrong: the CEL compiler's message for a condition that does not compile
     */
    public record Problem(int index, String rule, String message) {
        public Problem {
            Objects.requireNonNull(rule, "rule");
            Objects.requireNonNull(message, "message");
        }

        @Override
        public String toString() {
            return "rules[" + index + "] '" + rule + "': " + message;
        }
    }

    private final transient List<Problem> problems;

    InvalidRulesException(List<Problem> problems) {
        super(summary(problems));
        this.problems = List.copyOf(problems);
    }

    /** The problems, in rule order. */
    public List<Problem> problems() {
        return problems;
    }

    private static String summary(List<Problem> problems) {
        StringBuilder b = new StringBuilder("invalid rules: ");
        for (int i = 0; i < problems.size(); i++) {
            b.append(i == 0 ? "" : "; ").append(problems.get(i));
        }
        return b.toString();
    }
}
