package dev.toolbus.executor.internal;

import dev.toolbus.tool.DescriptionLocale;

/** The messages the model reads for failures the executor itself detects, per locale. */
final class ErrorTexts {

    private final boolean zh;

    ErrorTexts(DescriptionLocale locale) {
        this.zh = locale == DescriptionLocale.ZH;
    }

    String unknownTool(String name) {
        if (name.isEmpty()) {
            return zh ? "工具调用缺少工具名称。" : "The tool call has no tool name.";
        }
        return zh ? "未找到工具：" + name : "Unknown tool: " + name;
    }

    String notAvailable(String name) {
        return zh ? "工具 " + name + " 在当前会话中不可用。" : "Tool " + name + " is not available in this session.";
    }

    String invalidJson(String name, String detail) {
        return zh ? "工具 " + name + " 的参数不是合法的 JSON：" + detail
                : "Invalid arguments for " + name + ": not valid JSON (" + detail + ").";
    }

    String notAnObject(String name, String actualType) {
        return zh ? "工具 " + name + " 的参数必须是 JSON 对象，实际为 " + actualType + "。"
                : "Invalid arguments for " + name + ": arguments must be a JSON object, got " + actualType + ".";
    }

    String violation(String name, ArgumentRules.Violation v) {
        return switch (v.kind()) {
            case MISSING -> zh ? "工具 " + name + " 缺少必填参数 " + v.argument() + "。"
                    : "Invalid arguments for " + name + ": missing required argument '" + v.argument() + "'.";
            case TYPE -> zh ? "工具 " + name + " 的参数 " + v.argument() + " 应为 " + v.expected() + " 类型，实际为 "
                    + v.actual() + "。"
                    : "Invalid arguments for " + name + ": argument '" + v.argument() + "' must be " + v.expected()
                    + ", got " + v.actual() + ".";
            case SCHEMA -> zh ? "工具 " + name + " 的参数无效：" + v.expected() + "。"
                    : "Invalid arguments for " + name + ": " + v.expected() + ".";
            case ENUM -> zh ? "工具 " + name + " 的参数 " + v.argument() + " 必须是以下值之一：" + v.expected() + "。"
                    : "Invalid arguments for " + name + ": argument '" + v.argument() + "' must be one of: "
                    + v.expected() + ".";
        };
    }

    String timeout(String name, long ms) {
        return zh ? "工具 " + name + " 执行超时 (" + ms + "ms)，已取消。"
                : "Tool " + name + " timed out after " + ms + " ms and was cancelled.";
    }

    String failed(String name, Throwable t) {
        String m = t.getMessage();
        if (m == null || m.isBlank()) {
            m = t.getClass().getSimpleName();
        } else if (t instanceof Error) {
            m = t.getClass().getSimpleName() + ": " + m;
        }
        return m;
    }

    String cancelled(String name) {
        return zh ? "工具 " + name + " 的调用已取消。" : "The call to " + name + " was cancelled.";
    }

    String overloaded(int queued) {
        return zh ? "工具执行队列已满（" + queued + " 个调用在等待），请稍后重试。"
                : "toolbus is overloaded (" + queued + " calls waiting); try again later.";
    }

    String shuttingDown() {
        return zh ? "工具执行器正在关闭，请稍后重试。" : "toolbus is shutting down; try again later.";
    }
}
