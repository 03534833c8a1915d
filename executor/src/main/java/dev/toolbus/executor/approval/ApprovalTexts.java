package dev.toolbus.executor.approval;

import dev.toolbus.protocol.Risk;
import dev.toolbus.tool.DescriptionLocale;
import java.util.List;

/**
 * The text of an approval request and the messages of calls that were not approved, per locale:
 * {@code zh} is ChatAI's wording, {@code en} its English mirror.
 */
final class ApprovalTexts {

    /** One call as the prompt lists it. */
    record Line(String name, Risk risk, String argumentsSummary) {
    }

    private final boolean zh;

    ApprovalTexts(DescriptionLocale locale) {
        this.zh = locale == DescriptionLocale.ZH;
    }

    /**
     * The prompt, for example (en):
     * <pre>
     * The model requested these tools:
     * [1] wipe risk: high
     * arguments: {"target":"disk"}
     * Reply: confirm / cancel / allow for this conversation
     * </pre>
     */
    String prompt(List<Line> calls) {
        StringBuilder b = new StringBuilder(zh ? "检测到模型请求执行工具：" : "The model requested these tools:");
        for (int i = 0; i < calls.size(); i++) {
            Line l = calls.get(i);
            b.append('\n').append('[').append(i + 1).append("] ").append(l.name())
                    .append(zh ? " 风险: " : " risk: ").append(l.risk().wireName())
                    .append('\n').append(zh ? "参数: " : "arguments: ").append(l.argumentsSummary());
        }
        b.append('\n').append(zh ? "回复：确认 / 取消 / 允许本对话" : "Reply: confirm / cancel / allow for this conversation");
        return b.toString();
    }

    /** The user said no. */
    String denied() {
        return zh ? "工具未执行：用户取消" : "Tool not executed: the user declined.";
    }

    /** Nobody answered in time. */
    String expired(long timeoutMs) {
        return zh ? "工具未执行：确认超时（" + timeoutMs + "ms）"
                : "Tool not executed: no answer to the approval request within " + timeoutMs + " ms.";
    }

    /** The request could not be published. */
    String unsent(String reason) {
        return zh ? "工具未执行：当前环境无法发送确认请求（" + reason + "）"
                : "Tool not executed: the approval request could not be sent (" + reason + ").";
    }

    /** The mode is {@code ask}: nothing runs. */
    String askMode() {
        return zh ? "工具未执行：ask 模式不执行工具" : "Tool not executed: ask mode runs no tools.";
    }
}
