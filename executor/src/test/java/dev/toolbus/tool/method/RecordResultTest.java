package dev.toolbus.tool.method;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.result.ForeignValues;
import dev.toolbus.tool.ToolResult;
import org.junit.jupiter.api.Test;

class RecordResultTest {

    record Weather(String city, int tempC) {
    }

    @Test
    void a_record_reads_as_its_json_not_its_to_string() {
        ToolResult fromRecord = MethodToolHandler.toResult(new Weather("Oslo", 21));
        ToolResult fromMap = MethodToolHandler.toResult(java.util.Map.of("city", "Oslo", "temp_c", 21));
        assertThat(fromRecord.isError()).isFalse();
        assertThat(fromRecord.content()).isEqualTo(fromMap.content());
        assertThat(String.valueOf(fromRecord.data())).isEqualTo("{\"city\":\"Oslo\",\"temp_c\":21}");
    }

    @Test
    void plain_values_keep_their_mapping() {
        assertThat(MethodToolHandler.toResult("hi").content()).isEqualTo("hi");
        assertThat(MethodToolHandler.toResult(42).content()).isEqualTo("42");
        assertThat(MethodToolHandler.toResult(java.util.List.of(1, 2)).content())
                .isEqualTo(ForeignValues.toResult(java.util.List.of(1, 2)).content());
    }
}
