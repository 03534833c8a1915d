package dev.toolbus.text;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.protocol.Risk;
import java.util.List;
import org.junit.jupiter.api.Test;

class ApprovalTextsTest {

    private static final List<Texts.ApprovalLine> CALLS = List.of(
            new Texts.ApprovalLine("wipe", Risk.HIGH, "{\"target\":\"disk\"}"),
            new Texts.ApprovalLine("echo", Risk.MEDIUM, "{\"text\":\"hi\"}"));

    @Test
    void chineseIsChatAisWording() {
        assertThat(Texts.of(DescriptionLocale.ZH).approvalPrompt(CALLS)).isEqualTo("""
                检测到模型请求执行工具：
                [1] wipe 风险: high
                参数: {"target":"disk"}
                [2] echo 风险: medium
                参数: {"text":"hi"}
                回复：确认 / 取消 / 允许本对话""");
    }

    @Test
    void englishMirrorsIt() {
        assertThat(Texts.of(DescriptionLocale.EN).approvalPrompt(CALLS)).isEqualTo("""
                The model requested these tools:
                [1] wipe risk: high
                arguments: {"target":"disk"}
                [2] echo risk: medium
                arguments: {"text":"hi"}
                Reply: confirm / cancel / allow for this conversation""");
    }

    @Test
    void notApprovedMessagesSayWhy() {
        Texts zh = Texts.of(DescriptionLocale.ZH);
        Texts en = Texts.of(DescriptionLocale.EN);
        assertThat(zh.approvalDeclined()).isEqualTo("工具未执行：用户取消");
        assertThat(zh.approvalExpired(60_000)).startsWith("工具未执行：确认超时");
        assertThat(zh.askModeRunsNothing()).isEqualTo("工具未执行：ask 模式不执行工具");
        assertThat(en.approvalDeclined()).contains("declined");
        assertThat(en.approvalExpired(60_000)).contains("no answer").contains("60000 ms");
        assertThat(en.askModeRunsNothing()).contains("ask mode");
    }
}
