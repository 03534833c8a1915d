package dev.toolbus.executor.settings;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ResultLimitsTest {

    @Test
    void globsMatchWholeNames() {
        assertThat(ResultLimits.glob("web_*", "web_fetch")).isTrue();
        assertThat(ResultLimits.glob("*_fetch", "web_fetch")).isTrue();
        assertThat(ResultLimits.glob("w*b*h", "web_fetch")).isTrue();
        assertThat(ResultLimits.glob("web", "web_fetch")).isFalse();
        assertThat(ResultLimits.glob("*", "x")).isTrue();
        assertThat(ResultLimits.glob("a*c", "abcd")).isFalse();
    }
}
