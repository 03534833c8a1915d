package dev.toolbus.executor.limits;

import dev.toolbus.tool.DescriptionLocale;

/** The messages of calls a limit refused, per locale. */
final class LimitTexts {

    private final boolean zh;

    LimitTexts(DescriptionLocale locale) {
        this.zh = locale == DescriptionLocale.ZH;
    }

    String rateLimited(String tool, String rule, long retryAfterMs) {
        return zh ? "工具 " + tool + " 调用过于频繁（限制规则 " + rule + "），请在 " + retryAfterMs + " 毫秒后重试。"
                : "Tool " + tool + " is rate limited (rule " + rule + "); retry after " + retryAfterMs + " ms.";
    }

    String storeDown(String tool, String rule) {
        return zh ? "工具 " + tool + " 暂不可用：限制规则 " + rule + " 的共享计数存储无法访问。"
                : "Tool " + tool + " is rate limited: the shared store of rule " + rule
                + " cannot be reached, so the call was refused; retry later.";
    }

    String perTool(String tool, String rule, int max) {
        return zh ? "本轮对工具 " + tool + " 的调用已达上限 " + max + " 次（限制规则 " + rule + "），此调用未执行。"
                : "Tool " + tool + " was not run: at most " + max + " calls of it per turn (rule " + rule + ").";
    }

    String perTurn(String tool, String rule, int max) {
        return zh ? "本轮工具调用已达上限 " + max + " 次（限制规则 " + rule + "），工具 " + tool + " 未执行。"
                : "Tool " + tool + " was not run: at most " + max + " such calls per turn (rule " + rule + ").";
    }

    String tooManyWaiting(String tool, String rule, int n) {
        return zh ? "工具 " + tool + " 繁忙：已有 " + n + " 个调用在等待（限制规则 " + rule + "），请稍后重试。"
                : "Tool " + tool + " is busy: " + n + " calls already wait for it (rule " + rule + "); retry later.";
    }
}
