package dev.toolbus.rules;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.Objects;

/**
 * What the rules read of one call besides its tool.
 *
 * @param args the validated arguments (the {@code args} variable; converted to CEL values only as far
 *     as an expression reads them); an object node, {@code null} for none
 * @param context the session ({@code ctx}); {@code null} for {@link RuleContext#EMPTY}
 * @param turn the calls so far in the turn ({@code turn}); {@code null} for {@link TurnCounts#NONE}
 * @param caller who calls ({@code caller}); {@code null} for {@link Caller#DIRECT}
 */
public record RuleCall(JsonNode args, RuleContext context, TurnCounts turn, Caller caller) {

    private static final JsonNode NO_ARGS = JsonNodeFactory.instance.objectNode();

    /** @throws IllegalArgumentException when {@code args} is not a JSON object */
    public RuleCall {
        args = args == null || args.isNull() || args.isMissingNode() ? NO_ARGS : args;
        if (!args.isObject()) {
            throw new IllegalArgumentException("args must be a JSON object, got " + args.getNodeType());
        }
        context = Objects.requireNonNullElse(context, RuleContext.EMPTY);
        turn = Objects.requireNonNullElse(turn, TurnCounts.NONE);
        caller = Objects.requireNonNullElse(caller, Caller.DIRECT);
    }
}
