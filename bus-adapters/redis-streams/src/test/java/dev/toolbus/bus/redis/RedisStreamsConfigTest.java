package dev.toolbus.bus.redis;

import dev.toolbus.protocol.EventIdPeek;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisStreamsConfigTest {

    @Test
    void defaults_matchTheDesign() {
        RedisStreamsConfig c = RedisStreamsConfig.defaults();
        assertThat(c.callsStream()).isEqualTo("toolbus:calls");
        assertThat(c.group()).isEqualTo("toolbus");
        assertThat(c.resultsKey("qq:group:1")).isEqualTo("toolbus:results:qq:group:1");
        assertThat(c.deadLetterStream()).isEqualTo("toolbus:dead");
        assertThat(c.claimMinIdle()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.doneMarkerKey("s", "t")).isEqualTo("toolbus:done:"
                + dev.toolbus.spi.TurnKey.of(dev.toolbus.spi.Principal.bus("toolbus:calls"), "s", "t").hash());
        assertThat(c.principal()).isEqualTo(dev.toolbus.spi.Principal.bus("toolbus:calls"));
        assertThat(c.doneMarkersEnabled()).isTrue();
        assertThat(c.writeBatchBytes()).isEqualTo(1024 * 1024);
    }

    @Test
    void consumerName_isUniquePerBuild() {
        assertThat(RedisStreamsConfig.defaults().consumer()).isNotEqualTo(RedisStreamsConfig.defaults().consumer());
    }

    @Test
    void setters_rejectBadValuesNamingTheSetting() {
        var b = RedisStreamsConfig.builder();
        assertThatThrownBy(() -> b.batchSize(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("batchSize");
        assertThatThrownBy(() -> b.resultsKeyTemplate("results")).hasMessageContaining("{stream_id}");
        assertThatThrownBy(() -> b.claimMinIdle(Duration.ZERO)).hasMessageContaining("claimMinIdle");
        assertThatThrownBy(() -> b.resultsMaxLen(-1)).hasMessageContaining("resultsMaxLen");
        assertThatThrownBy(() -> b.group(" ")).hasMessageContaining("group");
        assertThatThrownBy(() -> b.maxEventBytes(10)).hasMessageContaining("maxEventBytes");
        assertThatThrownBy(() -> b.writeBatchBytes(1023)).hasMessageContaining("writeBatchBytes");
        assertThatThrownBy(() -> b.writeBatchBytes(64 * 1024 * 1024 + 1)).hasMessageContaining("writeBatchBytes");
    }

    @Test
    void build_rejectsADeadLetterStreamEqualToTheCallsStream() {
        assertThatThrownBy(() -> RedisStreamsConfig.builder().callsStream("x").deadLetterStream("x").build())
                .hasMessageContaining("deadLetterStream");
    }

    @Test
    void toBuilder_roundTrips() {
        RedisStreamsConfig c = RedisStreamsConfig.builder().consumer("n1").batchSize(7).writeBatchBytes(4096).build();
        assertThat(c.toBuilder().build()).isEqualTo(c);
        assertThat(c.toBuilder().build().writeBatchBytes()).isEqualTo(4096);
        assertThat(c).isNotEqualTo(c.toBuilder().writeBatchBytes(8192).build());
    }

    @Test
    void settingsAreBuiltOnlyByTheBuilder_andCompareByValue() {
        assertThat(RedisStreamsConfig.class.getConstructors()).isEmpty();
        assertThat(RedisStreamsConfig.class.isRecord()).isFalse();
        RedisStreamsConfig c = RedisStreamsConfig.builder().consumer("n1").instanceId("i1").build();
        assertThat(c).isNotEqualTo(c.toBuilder().instanceId("i2").build())
                .hasSameHashCodeAs(c.toBuilder().build());
        assertThat(c.toString()).contains("consumer=n1", "instanceId=i1");
    }

    @Test
    void eventKeys_readTopLevelIdsOnly() {
        byte[] json = "{\"calls\":[{\"stream_id\":\"inner\"}],\"stream_id\":\"s1\",\"turn_id\":\"t1\"}".getBytes();
        assertThat(EventIdPeek.of(json).streamId()).isEqualTo("s1");
        assertThat(EventIdPeek.of(json).turnId()).isEqualTo("t1");
        assertThat(EventIdPeek.of("not json".getBytes())).isEqualTo(EventIdPeek.NONE);
        assertThat(EventIdPeek.of("{\"stream_id\":\"s\",\"x\":\"unterminated".getBytes()).streamId()).isEqualTo("s");
    }
}
