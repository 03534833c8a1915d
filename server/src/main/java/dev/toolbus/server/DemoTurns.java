package dev.toolbus.server;

import java.util.List;

/**
 * The turns {@code toolbus demo} pushes, written as the JSON a bot core would send: two
 * conversations, a media-producing {@code draw}, a failing call, an unknown tool and arguments of
 * the wrong type, in both the toolbus and the OpenAI call shapes.
 */
final class DemoTurns {

    static final List<String> JSON = List.of(
            """
            {"type":"tool_calls","stream_id":"demo:alice","turn_id":"alice-1",
             "calls":[{"tool_call_id":"call_1","name":"echo","arguments":{"text":"hello from alice"}},
                      {"id":"call_2","type":"function","function":{"name":"add","arguments":"{\\"a\\":2,\\"b\\":40}"}}],
             "context":{"user_id":"alice","platform":"demo"}}
            """,
            """
            {"type":"tool_calls","stream_id":"demo:bob","turn_id":"bob-1",
             "calls":[{"tool_call_id":"call_1","name":"sleep","arguments":{"ms":200}},
                      {"tool_call_id":"call_2","name":"draw","arguments":{"label":"a teal pixel"}}],
             "context":{"user_id":"bob","platform":"demo"}}
            """,
            """
            {"type":"tool_calls","stream_id":"demo:alice","turn_id":"alice-2",
             "calls":[{"tool_call_id":"call_1","name":"fail","arguments":{"message":"the disk is on fire"}},
                      {"tool_call_id":"call_2","name":"search_web","arguments":{"query":"reactor"}},
                      {"tool_call_id":"call_3","name":"add","arguments":{"a":"two","b":3}}],
             "context":{"user_id":"alice","platform":"demo"}}
            """);

    private DemoTurns() {
    }

    /** The demo turns as single-line JSON, as they travel on a bus. */
    static List<String> lines() {
        return JSON.stream().map(json -> json.replace("\n", "")).toList();
    }
}
