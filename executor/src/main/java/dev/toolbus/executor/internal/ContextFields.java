package dev.toolbus.executor.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.CallContext;

/**
 * Fills context fields into arguments. {@code stream_id} and {@code chat_id} always come from the
 * event, never from the model: they are overwritten wherever the tool declares them or the model sent
 * them. {@code user_id}, {@code group_id} and {@code platform} are filled from the context when the
 * tool declares them and the model left them missing or empty. Legacy actions get MaiBot's full
 * payload instead: every context field, {@code reasoning} and {@code action_data}.
 */
final class ContextFields {

    private ContextFields() {
    }

    /** Returns the arguments to run with: {@code args} itself when nothing changes, else a filled copy. */
    static ObjectNode fill(ObjectNode args, ArgumentRules rules, String streamId, CallContext ctx) {
        if (!rules.declaresContextFields() && !args.has("stream_id") && !args.has("chat_id")) {
            return args;
        }
        ObjectNode out = args;
        out = overwrite(out, args, rules, "stream_id", streamId);
        out = overwrite(out, args, rules, "chat_id", streamId);
        out = fillIfEmpty(out, args, rules, "user_id", ctx.userId());
        out = fillIfEmpty(out, args, rules, "group_id", ctx.groupId());
        out = fillIfEmpty(out, args, rules, "platform", ctx.platform());
        return out;
    }

    /** MaiBot's legacy Action payload: args, missing context keys, stream/chat id, reasoning, action_data. */
    static ObjectNode legacyActionPayload(ObjectNode args, String streamId, CallContext ctx) {
        ObjectNode out = args.deepCopy();
        putIfFalsy(out, "stream_id", streamId);
        putIfFalsy(out, "chat_id", streamId);
        putIfFalsy(out, "group_id", ctx.groupId());
        putIfFalsy(out, "user_id", ctx.userId());
        putIfFalsy(out, "platform", ctx.platform());
        Object reasoning = ctx.extra().get("reasoning");
        out.put("reasoning", reasoning == null ? "" : reasoning.toString());
        out.set("action_data", args.deepCopy());
        return out;
    }

    /** MaiBot's tool payload (every context key added when absent or falsy), for foreign tools that want it. */
    static ObjectNode maibotToolPayload(ObjectNode args, String streamId, CallContext ctx) {
        ObjectNode out = args.deepCopy();
        putIfFalsy(out, "stream_id", streamId);
        putIfFalsy(out, "chat_id", streamId);
        putIfFalsy(out, "group_id", ctx.groupId());
        putIfFalsy(out, "user_id", ctx.userId());
        putIfFalsy(out, "platform", ctx.platform());
        return out;
    }

    private static ObjectNode overwrite(ObjectNode out, ObjectNode original, ArgumentRules rules, String key,
                                        String value) {
        if (!rules.declares(key) && !original.has(key)) {
            return out;
        }
        JsonNode current = out.get(key);
        if (current != null && current.isTextual() && current.textValue().equals(value)) {
            return out;
        }
        ObjectNode copy = out == original ? original.deepCopy() : out;
        copy.put(key, value);
        return copy;
    }

    private static ObjectNode fillIfEmpty(ObjectNode out, ObjectNode original, ArgumentRules rules, String key,
                                          String value) {
        if (value.isEmpty() || !rules.declares(key) || !falsy(out.get(key))) {
            return out;
        }
        ObjectNode copy = out == original ? original.deepCopy() : out;
        copy.put(key, value);
        return copy;
    }

    private static void putIfFalsy(ObjectNode out, String key, String value) {
        if (!value.isEmpty() && falsy(out.get(key))) {
            out.put(key, value);
        }
    }

    static boolean falsy(JsonNode v) {
        if (v == null || v.isNull()) {
            return true;
        }
        if (v.isTextual()) {
            return v.textValue().isEmpty();
        }
        if (v.isBoolean()) {
            return !v.booleanValue();
        }
        if (v.isNumber()) {
            return v.doubleValue() == 0;
        }
        return v.isContainerNode() && v.isEmpty();
    }
}
