package dev.toolbus.executor.approval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.protocol.Risk;
import dev.toolbus.tool.DescriptionLocale;
import java.util.List;
import org.junit.jupiter.api.Test;

class ApprovalTextsTest {

    private static final List<ApprovalTexts.Line> CALLS = List.of(
            new ApprovalTexts.Line("wipe", Risk.HIGH, "{\"target\":\"disk\"}"),
            new ApprovalTexts.Line("echo", Risk.MEDIUM, "{\"text\":\"hi\"}"));

    @Test
    void chineseIsChatAisWording() {
        assertThat(new ApprovalTexts(DescriptionLocale.ZH).prompt(CALLS)).isEqualTo("""
                检测到模型请求执行工具：
                [1] wipe 风险: high
                参数: {"target":"disk"}
                [2] echo 风险: medium
                参数: {"text":"hi"}
                回复：确认 / 取消 / 允许本对话""");
    }

    @Test
    void englishMirrorsIt() {
        assertThat(new ApprovalTexts(DescriptionLocale.EN).prompt(CALLS)).isEqualTo("""
                The model requested these tools:
                [1] wipe risk: high
                arguments: {"target":"disk"}
                [2] echo risk: medium
                arguments: {"text":"hi"}
                Reply: confirm / cancel / allow for this conversation""");
    }

    @Test
    void notApprovedMessagesSayWhy() {
        ApprovalTexts zh = new ApprovalTexts(DescriptionLocale.ZH);
        ApprovalTexts en = new ApprovalTexts(DescriptionLocale.EN);
        assertThat(zh.denied()).isEqualTo("工具未执行：用户取消");
        assertThat(zh.expired(60_000)).startsWith("工具未执行：确认超时");
        assertThat(zh.askMode()).isEqualTo("工具未执行：ask 模式不执行工具");
        assertThat(en.denied()).contains("declined");
        assertThat(en.expired(60_000)).contains("no answer").contains("60000 ms");
        assertThat(en.askMode()).contains("ask mode");
    }
}
