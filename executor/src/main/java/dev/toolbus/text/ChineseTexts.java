package dev.toolbus.text;

import java.util.List;
import java.util.Locale;

/**
 * The {@code zh} catalog: MaiBot's texts byte for byte (full-width punctuation, {@code 、} as list
 * joiner) and ChatAI's wording for approval.
 */
final class ChineseTexts implements Texts {

    static final ChineseTexts INSTANCE = new ChineseTexts();

    private ChineseTexts() {
    }

    @Override
    public DescriptionLocale locale() {
        return DescriptionLocale.ZH;
    }

    // generated tool descriptions

    @Override
    public String toolFallback(String toolName) {
        return "工具 " + toolName;
    }

    @Override
    public String parameterBlockHeader() {
        return "参数说明：";
    }

    @Override
    public String noParameterDescription() {
        return "无额外说明";
    }

    @Override
    public String legacyActionParameter() {
        return "兼容旧 Action 参数";
    }

    @Override
    public String parameterLine(String name, String type, boolean required, String description,
                                List<String> enumValues, String defaultValue) {
        StringBuilder sb = new StringBuilder("- ").append(name).append('：').append(type).append('，')
                .append(required ? "必填" : "可选").append('。').append(description);
        if (!enumValues.isEmpty()) {
            sb.append(" 可选值：").append(String.join(listJoiner(), enumValues)).append('。');
        }
        if (defaultValue != null) {
            sb.append(" 默认值：").append(defaultValue).append('。');
        }
        return sb.toString();
    }

    @Override
    public String listJoiner() {
        return "、";
    }

    @Override
    public String usageNotesHeader() {
        return "使用建议：";
    }

    @Override
    public String messageTypesLine(String types) {
        return "适用消息类型：" + types + "。";
    }

    @Override
    public String activationLine(String activationType) {
        return "兼容旧 Action 激活方式：" + activationType + "。";
    }

    @Override
    public String keywordsLine(String keywords) {
        return "激活关键词：" + keywords + "。";
    }

    @Override
    public String actionPromptLine(String prompt) {
        return "原始 Action 提示语：" + prompt + "。";
    }

    // results and media

    @Override
    public String imageContent() {
        return "图片内容";
    }

    @Override
    public String audioContent() {
        return "音频内容";
    }

    @Override
    public String resourceLink() {
        return "资源链接";
    }

    @Override
    public String embeddedResource() {
        return "嵌入资源";
    }

    @Override
    public String binaryContent() {
        return "二进制内容";
    }

    @Override
    public String otherContentSuffix() {
        return "内容";
    }

    @Override
    public String toolSucceeded() {
        return "工具执行成功。";
    }

    @Override
    public String toolFailed(String toolName) {
        return "工具 " + toolName + " 执行失败。";
    }

    @Override
    public String imageMarker() {
        return "[图片]";
    }

    @Override
    public String foreignToolFailed() {
        return "插件工具执行失败";
    }

    @Override
    public String mediaTooLarge(int itemNumber, String type, long bytes, long limit) {
        return String.format(Locale.ROOT, "第 %d 个内容项（%s）解码后约 %d 字节，超过媒体大小上限 %d 字节。",
                itemNumber, type, bytes, limit);
    }

    @Override
    public String tooManyContentItems(int items, int limit) {
        return String.format(Locale.ROOT, "工具结果包含 %d 个内容项，超过上限 %d 个。", items, limit);
    }

    // the executor's errors

    @Override
    public String noToolName() {
        return "工具调用缺少工具名称。";
    }

    @Override
    public String unknownTool(String toolName) {
        return "未找到工具：" + toolName;
    }

    @Override
    public String notAvailable(String toolName) {
        return "工具 " + toolName + " 在当前会话中不可用。";
    }

    @Override
    public String invalidJson(String toolName, String detail) {
        return "工具 " + toolName + " 的参数不是合法的 JSON：" + detail;
    }

    @Override
    public String notAnObject(String toolName, String actualType) {
        return "工具 " + toolName + " 的参数必须是 JSON 对象，实际为 " + actualType + "。";
    }

    @Override
    public String missingArgument(String toolName, String argument) {
        return "工具 " + toolName + " 缺少必填参数 " + argument + "。";
    }

    @Override
    public String wrongArgumentType(String toolName, String argument, String expected, String actual) {
        return "工具 " + toolName + " 的参数 " + argument + " 应为 " + expected + " 类型，实际为 " + actual + "。";
    }

    @Override
    public String schemaViolation(String toolName, String detail) {
        return "工具 " + toolName + " 的参数无效：" + detail + "。";
    }

    @Override
    public String notOneOf(String toolName, String argument, String allowed) {
        return "工具 " + toolName + " 的参数 " + argument + " 必须是以下值之一：" + allowed + "。";
    }

    @Override
    public String timedOut(String toolName, long ms) {
        return "工具 " + toolName + " 执行超时 (" + ms + "ms)，已取消。";
    }

    @Override
    public String cancelled(String toolName) {
        return "工具 " + toolName + " 的调用已取消。";
    }

    @Override
    public String overloaded(int queued) {
        return "工具执行队列已满（" + queued + " 个调用在等待），请稍后重试。";
    }

    @Override
    public String shuttingDown() {
        return "工具执行器正在关闭，请稍后重试。";
    }

    // limits

    @Override
    public String rateLimited(String toolName, String rule, long retryAfterMs) {
        return "工具 " + toolName + " 调用过于频繁（限制规则 " + rule + "），请在 " + retryAfterMs + " 毫秒后重试。";
    }

    @Override
    public String limitStoreDown(String toolName, String rule) {
        return "工具 " + toolName + " 暂不可用：限制规则 " + rule + " 的共享计数存储无法访问。";
    }

    @Override
    public String perToolCapReached(String toolName, String rule, int max) {
        return "本轮对工具 " + toolName + " 的调用已达上限 " + max + " 次（限制规则 " + rule + "），此调用未执行。";
    }

    @Override
    public String perTurnCapReached(String toolName, String rule, int max) {
        return "本轮工具调用已达上限 " + max + " 次（限制规则 " + rule + "），工具 " + toolName + " 未执行。";
    }

    @Override
    public String tooManyWaiting(String toolName, String rule, int waiting) {
        return "工具 " + toolName + " 繁忙：已有 " + waiting + " 个调用在等待（限制规则 " + rule + "），请稍后重试。";
    }

    // approval

    @Override
    public String approvalPrompt(List<ApprovalLine> calls) {
        StringBuilder b = new StringBuilder("检测到模型请求执行工具：");
        for (int i = 0; i < calls.size(); i++) {
            ApprovalLine l = calls.get(i);
            b.append('\n').append('[').append(i + 1).append("] ").append(l.tool())
                    .append(" 风险: ").append(l.risk().wireName())
                    .append('\n').append("参数: ").append(l.argumentsSummary());
            if (!l.reason().isEmpty()) {
                b.append('\n').append("原因: ").append(l.reason());
            }
        }
        b.append('\n').append("回复：确认 / 取消 / 允许本对话");
        return b.toString();
    }

    @Override
    public String approvalDeclined() {
        return "工具未执行：用户取消";
    }

    @Override
    public String approvalDeclinedWith(String message) {
        return "工具未执行：用户取消，并说明：" + message;
    }

    @Override
    public String approvalEditNamesNoCall() {
        return "工具未执行：批准时修改了参数，但没有指明是哪一个调用（tool_call_id）的参数";
    }

    @Override
    public String approvalExpired(long timeoutMs) {
        return "工具未执行：确认超时（" + timeoutMs + "ms）";
    }

    @Override
    public String approvalBusy(long waitingBytes, long maxBytes) {
        return "工具未执行：等待确认的调用过多（已占用 " + waitingBytes + " 字节，上限 " + maxBytes + " 字节），请在部分确认完成后重试";
    }

    @Override
    public String approvalUnsent(String reason) {
        return "工具未执行：当前环境无法发送确认请求（" + reason + "）";
    }

    @Override
    public String askModeRunsNothing() {
        return "工具未执行：ask 模式不执行工具";
    }

    @Override
    public String programmaticCannotWait(String tool) {
        return "工具 " + tool + " 未执行：需要人工审批，而代码发起的调用无法等待审批。请直接调用。";
    }

    @Override
    public String ruleAskWithoutApproval(String tool, String rule) {
        return "工具 " + tool + " 未执行：规则 '" + rule + "' 要求人工审批，而此处未开启审批。";
    }

    @Override
    public String callerNotAllowed(String tool, String caller, String allowed) {
        return "工具 " + tool + " 不允许 " + caller + " 调用方调用；允许的调用方：" + allowed + "。";
    }

    @Override
    public String invalidOutput(String tool, String problem) {
        return "工具 " + tool + " 的结果不符合其输出 schema：" + problem;
    }

    @Override
    public String noOutputData(String tool) {
        return "工具 " + tool + " 的结果没有 data，但该工具声明了输出 schema。";
    }

    @Override
    public String outcomeUnknown(String tool) {
        return "结果未知：工具 " + tool + " 的调用在本轮中断前已经开始，但没有返回结果，可能已经生效，也可能没有。"
                + "为避免重复执行，未再次运行。再次调用前，请先确认它是否已经生效。";
    }

    @Override
    public String stateUnavailable(String tool, String reason) {
        return "工具未执行：无法在轮次状态中记录 " + tool + " 的调用（" + reason + "），请稍后重试";
    }

    @Override
    public String finishedResultNotKept(String tool) {
        return "工具 " + tool + " 的调用在本轮重新执行前已经完成；其结果过大未被保存，因此不再显示。请勿为同一目的再次调用。";
    }

    // cut results

    @Override
    public String errorCut(int cutChars) {
        return "…[已截去 " + cutChars + " 个字符]";
    }

    @Override
    public String cutNotKept(int total, int shown, int cut) {
        return "[toolbus：此结果共 " + total + " 个字符，仅显示前 " + shown + " 个，已截去 " + cut + " 个；其余内容未保留。]";
    }

    @Override
    public String cutKept(int total, int shown, int cut, String readTool, String arguments) {
        return "[toolbus：此结果共 " + total + " 个字符，仅显示前 " + shown + " 个，已截去 " + cut
                + " 个。如需读取其余内容，请调用 " + readTool + "，参数 " + arguments + "。]";
    }

    // read_tool_result

    @Override
    public String readToolResultDescription() {
        return "读取因过长而被截断的工具结果的其余部分：给出截断提示中的 tool_call_id 和起始位置 offset。";
    }

    @Override
    public String readToolCallIdParameter() {
        return "被截断结果所属调用的 tool_call_id";
    }

    @Override
    public String readOffsetParameter() {
        return "从第几个字符开始读（0 起）";
    }

    @Override
    public String readLengthParameter() {
        return "最多读取的字符数（默认且至多为截断时的上限）";
    }

    @Override
    public String resultNotKept(String toolCallId) {
        return "此对话中没有保存调用 " + toolCallId + " 的完整结果：该结果未被截断、已过期，或不属于此对话。";
    }

    @Override
    public String offsetOutOfRange(long offset, int total) {
        return "offset " + offset + " 超出范围：该结果共 " + total + " 个字符（0 到 " + (total - 1) + "）。";
    }

    @Override
    public String readMore(int offset, int end, int total, String readTool, String nextArguments) {
        return "[toolbus：第 " + offset + " 到 " + end + " 个字符，共 " + total + " 个；还剩 " + (total - end)
                + " 个，继续读取请调用 " + readTool + "，参数 " + nextArguments + "。]";
    }

    @Override
    public String readEnd(int offset, int end, int total) {
        return "[toolbus：第 " + offset + " 到 " + end + " 个字符，共 " + total + " 个；已到结尾。]";
    }

    // tool_search

    @Override
    public String toolSearchDescription() {
        return "按名称或用途搜索更多可用工具，返回其定义；返回的工具随后即可调用。";
    }

    @Override
    public String toolSearchQueryParameter() {
        return "要查找的工具名称或用途关键词";
    }

    @Override
    public String toolSearchLimitParameter() {
        return "最多返回的工具数";
    }

    @Override
    public String noToolsMatch(String query) {
        return "没有找到与“" + query + "”匹配的工具。";
    }

    @Override
    public String toolsFound(int count) {
        return "找到 " + count + " 个工具，现在可以调用：\n";
    }
}
