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
        return SkillsEvent.builder().streamId("qq:group:123").requestId("sk-1").mode("auto")
                .skills(List.of(new SkillsEvent.SkillEntry("pdf-tools", "Fill and merge PDF forms"))).skillsOmitted(2)
                .documents(List.of(new SkillText("pdf-tools", SkillText.Reason.MATCHED, text, false, text.length()),
                        new SkillText("deploy", SkillText.Reason.LOADED, "# deploy\n\n[cut: ...]", true, 90_000)))
                .loaded(List.of("deploy")).missing(List.of("nope")).omitted(List.of("big")).truncated(true).build();
    }

    static ToolResultEvent toolResult() {
        return ToolResultEvent.builder().streamId("qq:group:123").turnId("msg-42").toolCallId("call_1")
                .name("search_web").content("3 results\nfirst: x").data(Map.of("hits", List.of("a", "b"), "total", 3))
                .metadata(Map.of("source", "web")).attempts(1).elapsedMs(12).build();
    }

    static ToolResultEvent toolResultError() {
        return ToolResultEvent.builder().streamId("qq:group:123").turnId("msg-42").toolCallId("call_2")
                .name("get_weather").content("Tool get_weather timed out").isError(true)
                .error(new ErrorInfo(ErrorCode.TIMEOUT, "timed out after 30000 ms")).attempts(2).elapsedMs(30001)
                .build();
    }

    static ToolResultEvent toolResultMedia() {
        String content = "done\n\n<tool_result_media_list>\n"
                + "  <media msg_id=\"tool_result:call_1:1\" type=\"image\" mime=\"image/png\" name=\"out.png\" />\n"
                + "  <media msg_id=\"tool_result:call_1:2\" type=\"audio\" mime=\"audio/wav\" />\n"
                + "</tool_result_media_list>";
        return ToolResultEvent.builder().streamId("qq:group:123").turnId("msg-42").toolCallId("call_1")
                .name("plugin_image").content(content)
                .media(List.of(
                        MediaRef.builder().index("tool_result:call_1:1").type("image").mimeType("image/png")
                                .name("out.png").build(),
                        MediaRef.builder().index("tool_result:call_1:2").type("audio").mimeType("audio/wav").build()))
                .attempts(1).cached(true).build();
    }

    static UserMessageEvent userMessageImage() {
        String header = "<tool_result_media msg_id=\"tool_result:call_1:1\" type=\"image\" mime=\"image/png\" "
                + "name=\"out.png\" />";
        return UserMessageEvent.builder().streamId("qq:group:123").turnId("msg-42").messageId("tool_result:call_1:1")
                .toolCallId("call_1").source(UserMessageEvent.TOOL_RESULT_MEDIA)
                .content(List.of(ContentPart.text(header), ContentPart.imageBase64(PNG_1X1, "image/png")))
                .visibleText("<tool_result_media msg_id=\"tool_result:call_1:1\" />\n"
                        + "image / image/png / out.png\n[image]")
                .build();
    }

    static UserMessageEvent userMessageAudio() {
        return UserMessageEvent.builder().streamId("qq:group:123").turnId("msg-42").messageId("tool_result:call_1:2")
                .toolCallId("call_1")
                .content(List.of(ContentPart.text("<tool_result_media msg_id=\"tool_result:call_1:2\" type=\"audio\" "
                        + "mime=\"audio/wav\" />")))
                .build();
    }

    static TurnCompletedEvent turnCompleted() {
        return new TurnCompletedEvent("qq:group:123", "msg-42", List.of("call_1", "call_2"), 1, 30020);
    }

    static ToolsEvent tools() {
        ObjectNode t = (ObjectNode) json("""
                {"type":"function","function":{"name":"search_web","description":"Search the web",
                 "parameters":{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}}}""");
        return ToolsEvent.builder().streamId("qq:group:123").requestId("req-1").format("openai").tools(List.of(t))
                .build();
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
                ApprovalRequestEvent.builder().streamId("s").turnId("t").approvalId("ap-a1-1")
                        .expiresAtMs(1767225600000L)
                        .calls(List.of(new ApprovalRequestEvent.Call("c", "wipe", dev.toolbus.protocol.Risk.HIGH,
                                "{\"target\":\"x\"}")))
                        .text("The model requested: wipe").build(),
                ToolProgressEvent.builder().streamId("s").turnId("t").toolCallId("c").name("render").progress(2.5)
                        .build(),
                ToolProgressEvent.builder().streamId("s").turnId("t").toolCallId("c").name("render").progress(3)
                        .total(10.0).message("frame 3").build(),
                SendMessageEvent.builder().streamId("s").turnId("t").toolCallId("c").messageId("c:msg:1")
                        .content(List.of(ContentPart.text("hi"), ContentPart.imageBase64(PNG_1X1, "image/png")))
                        .build(),
                InputRequestEvent.builder().streamId("s").turnId("t").toolCallId("c").inputId("in-a1-1")
                        .expiresAtMs(1767225600000L).message("Which city?").build(),
                new ErrorEvent("s", null, ErrorCode.UNKNOWN_REQUEST, "no question"));
    }

    static List<InboundEvent> control() {
        return List.of(CancelEvent.ofStream("s"), CancelEvent.builder().streamId("s").turnId("t")
                .toolCallId("c").reason("stop").build(),
                new ApprovalResponseEvent("s", "ap-a1-1", ApprovalDecision.APPROVE_SESSION),
                new InputResponseEvent("s", "in-a1-1", InputAction.ACCEPT, json("{\"city\":\"Paris\"}")),
                new InputResponseEvent("s", "in-a1-2", InputAction.CANCEL, null));
    }
}
