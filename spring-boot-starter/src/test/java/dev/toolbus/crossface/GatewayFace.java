package dev.toolbus.crossface;

import java.util.List;

/** A face with a gateway: tools and calls through it, with the session's scoped token. */
abstract class GatewayFace implements Face {

    @Override
    public List<String> tools(Session session) throws Exception {
        GatewayClient.Listing l = gateway().tools(GatewayClient.token(session), GatewayClient.permission(session), "web:list");
        if (l.status() != 200) {
            throw new AssertionError(name() + ": GET /v1/tools answered " + l.status());
        }
        return l.names();
    }

    @Override
    public Result call(Session session, String tool, String argumentsJson, Answer answer) throws Exception {
        return gateway().call(session, "u-" + GatewayClient.permission(session), tool, argumentsJson, answer);
    }
}
