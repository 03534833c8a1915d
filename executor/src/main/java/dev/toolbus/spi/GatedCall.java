package dev.toolbus.spi;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.Caller;
import dev.toolbus.protocol.ErrorInfo;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.tool.ToolDefinition;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A call at the {@link CallGate}.
 *
 * @param turn its turn
 * @param index its position in the turn
 * @param call the call as it arrived
 * @param definition the resolved tool
 * @param arguments the validated arguments (context fields filled in); do not modify
 * @param note records what the gate did for the call log ({@code CallRecord.approval}); last note wins
 * @param ruleAsk when a rule over the call asks for a person's approval ({@link CallRules}), which rule and
 *     the text to show, whatever the gate's own settings say; else {@code null}. Only a gate that
 *     {@link CallGate#asksForRules() asks for rules} sees one
 * @param edit replaces the call's arguments with a human's edit before the gate lets it run: the edit
 *     is validated against the tool's schema and decided by the policy again; answers {@code null} when
 *     it is taken (the call runs with it, its result says the arguments were edited), else the error
 *     the call should end with. Call it before completing the gate's verdict.
 */
public record GatedCall(GatedTurn turn, int index, ToolCall call, ToolDefinition definition, ObjectNode arguments,
                        Consumer<String> note, RuleAsk ruleAsk, Function<ObjectNode, ErrorInfo> edit) {

    public GatedCall {
        note = note == null ? n -> { } : note;
        edit = edit == null ? a -> new ErrorInfo(dev.toolbus.protocol.ErrorCode.INVALID_ARGUMENTS,
                "this call's arguments cannot be edited") : edit;
    }

    /** A gated call no rule asked for, whose arguments may be edited through {@code edit}. */
    public GatedCall(GatedTurn turn, int index, ToolCall call, ToolDefinition definition, ObjectNode arguments,
                     Consumer<String> note, Function<ObjectNode, ErrorInfo> edit) {
        this(turn, index, call, definition, arguments, note, null, edit);
    }

    /** A gated call whose arguments cannot be edited. */
    public GatedCall(GatedTurn turn, int index, ToolCall call, ToolDefinition definition, ObjectNode arguments,
                     Consumer<String> note, RuleAsk ruleAsk) {
        this(turn, index, call, definition, arguments, note, ruleAsk, null);
    }

    /**
     * A rule's request for a person's approval.
     *
     * @param rule the rule's name
     * @param message the text to show in the approval request
     */
    public record RuleAsk(String rule, String message) {
        public RuleAsk {
            rule = rule == null ? "" : rule;
            message = message == null ? "" : message;
        }
    }

    /** Who makes the call. */
    public Caller caller() {
        return call.caller();
    }

    /** A gated call no rule asked for, whose arguments cannot be edited. */
    public GatedCall(GatedTurn turn, int index, ToolCall call, ToolDefinition definition, ObjectNode arguments,
                     Consumer<String> note) {
        this(turn, index, call, definition, arguments, note, null, null);
    }

    /** A gated call whose notes go nowhere. */
    public GatedCall(GatedTurn turn, int index, ToolCall call, ToolDefinition definition, ObjectNode arguments) {
        this(turn, index, call, definition, arguments, null, null, null);
    }
}
