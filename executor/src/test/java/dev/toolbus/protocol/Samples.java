package dev.toolbus.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Representative records of every event, shared by the codec and schema tests. */
final class Samples {

    static final String PNG_1X1 =
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4//8/AAX+Av5B4iG8AAAAAElFTkSuQmCC";

    private Samples() {
    }

    static JsonNode json(String s) {
        try {
            return Json.mapper().readTree(s);
        } catch (Exception e) {
            throw new IllegalArgumentException(s, e);
        }
    }

    static CallContext context() {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("chat_id", "c9");
        extra.put("flags", List.of("a", "b"));
        return CallContext.builder().userId("u1").groupId("g1").platform("qq").permission("member").channel("qq")
                .provider("openai").model("gpt-5.2").agentId("main").putAll(extra).build();
    }

    static ToolCallsEvent toolCalls() {
        return new ToolCallsEvent("qq:group:123", "msg-42", List.of(
                ToolCall.of("call_1", "search_web", json("{\"query\":\"reactor\",\"limit\":5}")),
                ToolCall.ofJson("call_2", "get_weather", "{\"city\":\"Paris\"}")),
                context(), json("{\"message_id\":\"m1\",\"text\":\"hi\"}"));
    }

    static ListToolsEvent listTools() {
        return new ListToolsEvent("qq:group:123", "req-1", context(), ListToolsEvent.Format.MCP);
    }

    static ListSkillsEvent listSkills() {
        return new ListSkillsEvent("qq:group:123", "sk-1", context(), "merge these pdf forms", List.of("deploy"));
    }

    static SkillsEvent skills() {
        String text = "# pdf-tools\n\nMerge with pdftk.";
        return new SkillsEvent("qq:group:123", "sk-1", "auto", List.of(new SkillsEvent.SkillEntry("pdf-tools",
                "Fill and merge PDF forms")), 2, List.of(new SkillText("pdf-tools", SkillText.Reason.MATCHED, text,
                false, text.length()), new SkillText("deploy", SkillText.Reason.LOADED, "# deploy\n\n[cut: ...]", true,
                90_000)), List.of("deploy"), List.of("nope"), List.of("big"), true);
    }

    static ToolResultEvent toolResult() {
        return new ToolResultEvent("qq:group:123", "msg-42", "call_1", "search_web", "3 results\nfirst: x", false,
                null, Map.of("hits", List.of("a", "b"), "total", 3), Map.of("source", "web"), List.of(), 1, false,
                12);
    }

    static ToolResultEvent toolResultError() {
        return new ToolResultEvent("qq:group:123", "msg-42", "call_2", "get_weather", "Tool get_weather timed out",
                true, new ErrorInfo(ErrorCode.TIMEOUT, "timed out after 30000 ms"), null, Map.of(), List.of(), 2,
                false, 30001);
    }

    static ToolResultEvent toolResultMedia() {
        String content = "done\n\n<tool_result_media_list>\n"
                + "  <media msg_id=\"tool_result:call_1:1\" type=\"image\" mime=\"image/png\" name=\"out.png\" />\n"
                + "  <media msg_id=\"tool_result:call_1:2\" type=\"audio\" mime=\"audio/wav\" />\n"
                + "</tool_result_media_list>";
        return new ToolResultEvent("qq:group:123", "msg-42", "call_1", "plugin_image", content, false, null, null,
                Map.of(), List.of(new MediaRef("tool_result:call_1:1", "image", "image/png", "out.png"),
                        new MediaRef("tool_result:call_1:2", "audio", "audio/wav", null)), 1, true, 0);
    }

    static UserMessageEvent userMessageImage() {
        String header = "<tool_result_media msg_id=\"tool_result:call_1:1\" type=\"image\" mime=\"image/png\" "
                + "name=\"out.png\" />";
        return new UserMessageEvent("qq:group:123", "msg-42", "tool_result:call_1:1", "call_1",
                UserMessageEvent.TOOL_RESULT_MEDIA, List.of(ContentPart.text(header),
                        ContentPart.imageBase64(PNG_1X1, "image/png")),
                "<tool_result_media msg_id=\"tool_result:call_1:1\" />\nimage / image/png / out.png\n[image]");
    }

    static UserMessageEvent userMessageAudio() {
        return new UserMessageEvent("qq:group:123", "msg-42", "tool_result:call_1:2", "call_1", null,
                List.of(ContentPart.text("<tool_result_media msg_id=\"tool_result:call_1:2\" type=\"audio\" "
                        + "mime=\"audio/wav\" />")), null);
    }

    static TurnCompletedEvent turnCompleted() {
        return new TurnCompletedEvent("qq:group:123", "msg-42", List.of("call_1", "call_2"), 1, 30020);
    }

    static ToolsEvent tools() {
        ObjectNode t = (ObjectNode) json("""
                {"type":"function","function":{"name":"search_web","description":"Search the web",
                 "parameters":{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}}}""");
        return new ToolsEvent("qq:group:123", "req-1", "openai", List.of(t));
    }

    static ErrorEvent error() {
        return new ErrorEvent("qq:group:123", "msg-42", ErrorCode.BAD_EVENT, "calls must be an array, got an object");
    }

    static ErrorEvent errorWithoutStream() {
        return new ErrorEvent(null, null, ErrorCode.BAD_EVENT, "an event must be a JSON object, got an array");
    }

    static List<OutboundEvent> outbound() {
        return List.of(skills(), SkillsEvent.off(ListSkillsEvent.of("s")), toolResult(), toolResultError(), toolResultMedia(), userMessageImage(), userMessageAudio(),
                turnCompleted(), tools(), error(), errorWithoutStream(),
                new ApprovalRequestEvent("s", "t", "ap-a1-1", 1767225600000L, List.of(new ApprovalRequestEvent.Call(
                        "c", "wipe", dev.toolbus.protocol.Risk.HIGH, "{\"target\":\"x\"}")), "The model requested: wipe"),
                new ToolProgressEvent("s", "t", "c", "render", 2.5, null, null),
                new ToolProgressEvent("s", "t", "c", "render", 3, 10.0, "frame 3"),
                new SendMessageEvent("s", "t", "c", "c:msg:1", List.of(ContentPart.text("hi"),
                        ContentPart.imageBase64(PNG_1X1, "image/png"))),
                new InputRequestEvent("s", "t", "c", "in-a1-1", 1767225600000L, "Which city?", null),
                new ErrorEvent("s", null, ErrorCode.UNKNOWN_REQUEST, "no question"));
    }

    static List<InboundEvent> control() {
        return List.of(new CancelEvent("s", null, null, ""), new CancelEvent("s", "t", "c", "stop"),
                new ApprovalResponseEvent("s", "ap-a1-1", ApprovalDecision.APPROVE_SESSION),
                new InputResponseEvent("s", "in-a1-1", InputAction.ACCEPT, json("{\"city\":\"Paris\"}")),
                new InputResponseEvent("s", "in-a1-2", InputAction.CANCEL, null));
    }
}
