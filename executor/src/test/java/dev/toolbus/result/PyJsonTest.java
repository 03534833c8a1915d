package dev.toolbus.result;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PyJsonTest {

    @Test
    void floatRepr_likePython() {
        assertThat(PyJson.floatRepr(1.0, true)).isEqualTo("1.0");
        assertThat(PyJson.floatRepr(-0.0, true)).isEqualTo("-0.0");
        assertThat(PyJson.floatRepr(0.1, true)).isEqualTo("0.1");
        assertThat(PyJson.floatRepr(0.0001, true)).isEqualTo("0.0001");
        assertThat(PyJson.floatRepr(0.00001, true)).isEqualTo("1e-05");
        assertThat(PyJson.floatRepr(1.5e-7, true)).isEqualTo("1.5e-07");
        assertThat(PyJson.floatRepr(123456789012345.0, true)).isEqualTo("123456789012345.0");
        assertThat(PyJson.floatRepr(1e16, true)).isEqualTo("1e+16");
        assertThat(PyJson.floatRepr(1.5e300, true)).isEqualTo("1.5e+300");
        assertThat(PyJson.floatRepr(Double.NaN, true)).isEqualTo("NaN");
        assertThat(PyJson.floatRepr(Double.NEGATIVE_INFINITY, false)).isEqualTo("-inf");
    }

    @Test
    void dumps_pythonSeparatorsAndEscapes() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("s", "名\"q\"\\\n\t\u0001\u007f\u2028");
        m.put("n", null);
        m.put("b", true);
        m.put("i", 3);
        m.put("f", 2.5f);
        m.put("d", new BigDecimal("1E+2"));
        m.put("l", Arrays.asList(1, List.of(), Map.of()));
        assertThat(PyJson.dumps(m)).isEqualTo(
                "{\"s\": \"名\\\"q\\\"\\\\\\n\\t\\u0001\u007f\u2028\", \"n\": null, \"b\": true, \"i\": 3, "
                        + "\"f\": 2.5, \"d\": 100.0, \"l\": [1, [], {}]}");
    }

    @Test
    void dumps_nonStringKeys() {
        Map<Object, Object> m = new LinkedHashMap<>();
        m.put(1, "a");
        m.put(true, "b");
        m.put(null, "c");
        assertThat(PyJson.dumps(m)).isEqualTo("{\"1\": \"a\", \"true\": \"b\", \"null\": \"c\"}");
    }

    @Test
    void dumps_jacksonTreeSameAsJava() throws Exception {
        String json = "{\"a\":[1,2.0,\"x\",null,{\"b\":false}],\"c\":{}}";
        ObjectMapper mapper = new ObjectMapper();
        String expected = "{\"a\": [1, 2.0, \"x\", null, {\"b\": false}], \"c\": {}}";
        assertThat(PyJson.dumps(mapper.readTree(json))).isEqualTo(expected);
        assertThat(PyJson.dumps(mapper.readValue(json, Object.class))).isEqualTo(expected);
    }

    @Test
    void dumps_cycleRefused() {
        List<Object> cycle = new ArrayList<>();
        cycle.add(cycle);
        assertThatThrownBy(() -> PyJson.dumps(cycle)).isInstanceOf(IllegalArgumentException.class);
        assertThat(PyValues.str(cycle)).isEqualTo("java.util.ArrayList");
    }

    @Test
    void str_pythonScalars() {
        assertThat(PyValues.str(true)).isEqualTo("True");
        assertThat(PyValues.str(null)).isEqualTo("None");
        assertThat(PyValues.str(42L)).isEqualTo("42");
        assertThat(PyValues.str(1e20)).isEqualTo("1e+20");
        assertThat(PyValues.strOrEmpty(0)).isEmpty();
        assertThat(PyValues.strOrEmpty(false)).isEmpty();
        assertThat(PyValues.strip("\u00a0 x \u3000")).isEqualTo("x");
        String clean = "x";
        assertThat(PyValues.strip(clean)).isSameAs(clean);
    }

    @Test
    void isSpaceIsPythonsIsspaceForEveryChar() {
        // Python's str.isspace() for one BMP char: Java's whitespace plus NEL, NBSP, figure and narrow NBSP
        for (int c = 0; c <= Character.MAX_VALUE; c++) {
            boolean python = Character.isWhitespace(c) || c == 0x85 || c == 0xa0 || c == 0x2007 || c == 0x202f;
            assertThat(PyValues.isSpace((char) c)).as("U+%04X", c).isEqualTo(python);
        }
        assertThat(PyValues.strip("\t\u001c x \u001f\n")).isEqualTo("x");
        assertThat(PyValues.strip("~x!")).isEqualTo("~x!");
    }
}
