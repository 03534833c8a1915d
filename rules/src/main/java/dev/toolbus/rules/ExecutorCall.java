package dev.toolbus.rules;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.Caller;
import dev.toolbus.spi.CallRules;

/** An executor's call as the evaluation reads it; {@code ctx} is made when first read. */
final class ExecutorCall implements CallInputs {

    private final CallRules.Call call;
    private MapValue.Struct ctx;

    ExecutorCall(CallRules.Call call) {
        this.call = call;
    }

    @Override
    public JsonNode args() {
        JsonNode a = call.arguments();
        return a == null ? RuleCall.NO_ARGS : a;
    }

    @Override
    public MapValue.Struct ctx() {
        MapValue.Struct c = ctx;
        if (c == null) {
            CallContext x = call.context();
            c = RuleContext.builder().user(x.userId()).permission(x.permission()).group(x.groupId())
                    .platform(x.platform()).channel(x.channel()).agent(x.agentId()).stream(call.streamId()).build()
                    .value();
            ctx = c;
        }
        return c;
    }

    @Override
    public CallRules.Counts turn() {
        CallRules.Counts t = call.turn();
        return t == null ? TurnCounts.NONE : t;
    }

    @Override
    public Caller caller() {
        Caller c = call.caller();
        return c == null ? Caller.DIRECT : c;
    }
}
