package dev.toolbus.tool;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class PythonTextTest {

    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private static JsonNode json(String s) {
        return MaiBotVectors.parse(s);
    }

    @Test
    void str_scalars() {
        assertThat(PythonText.str(json("false"))).isEqualTo("False");
        assertThat(PythonText.str(json("true"))).isEqualTo("True");
        assertThat(PythonText.str(json("null"))).isEqualTo("None");
        assertThat(PythonText.str(json("5"))).isEqualTo("5");
        assertThat(PythonText.str(json("\"a b\""))).isEqualTo("a b");
        assertThat(PythonText.str(json("123456789012345678901234567890"))).isEqualTo("123456789012345678901234567890");
    }

    @Test
    void str_containers_useRepr() {
        assertThat(PythonText.str(json("[1, 2]"))).isEqualTo("[1, 2]");
        assertThat(PythonText.str(json("[\"a\", \"it's\", \"q\\\"\"]"))).isEqualTo("['a', \"it's\", 'q\"']");
        assertThat(PythonText.str(json("{\"a\": {\"b\": null}}"))).isEqualTo("{'a': {'b': None}}");
        assertThat(PythonText.str(json("[\"tab\\tnl\\n\\u0001\", \"中文\"]"))).isEqualTo("['tab\\tnl\\n\\x01', '中文']");
        assertThat(PythonText.str(json("[]"))).isEqualTo("[]");
    }

    @Test
    void reprFloat_likePython() {
        assertThat(PythonText.reprFloat(5.0)).isEqualTo("5.0");
        assertThat(PythonText.reprFloat(0.1)).isEqualTo("0.1");
        assertThat(PythonText.reprFloat(-2.5)).isEqualTo("-2.5");
        assertThat(PythonText.reprFloat(0.0001)).isEqualTo("0.0001");
        assertThat(PythonText.reprFloat(0.00001)).isEqualTo("1e-05");
        assertThat(PythonText.reprFloat(1e15)).isEqualTo("1000000000000000.0");
        assertThat(PythonText.reprFloat(1e16)).isEqualTo("1e+16");
        assertThat(PythonText.reprFloat(1.5e100)).isEqualTo("1.5e+100");
        assertThat(PythonText.reprFloat(-0.0)).isEqualTo("-0.0");
        assertThat(PythonText.reprFloat(Double.NaN)).isEqualTo("nan");
    }

    @Test
    void str_floatNodes() {
        assertThat(PythonText.str(F.numberNode(new BigDecimal("1.0")))).isEqualTo("1.0");
        assertThat(PythonText.str(F.numberNode(0.1f))).isEqualTo("0.1");
        assertThat(PythonText.str(F.numberNode(3.0))).isEqualTo("3.0");
    }

    @Test
    void truthy_likePython() {
        assertThat(PythonText.truthy(null)).isFalse();
        assertThat(PythonText.truthy(json("\"\""))).isFalse();
        assertThat(PythonText.truthy(json("0"))).isFalse();
        assertThat(PythonText.truthy(json("0.0"))).isFalse();
        assertThat(PythonText.truthy(json("[]"))).isFalse();
        assertThat(PythonText.truthy(json("{}"))).isFalse();
        assertThat(PythonText.truthy(json("false"))).isFalse();
        assertThat(PythonText.truthy(json("\" \""))).isTrue();
        assertThat(PythonText.truthy(json("1"))).isTrue();
        assertThat(PythonText.truthy(json("[0]"))).isTrue();
    }

    @Test
    void strip_includesPythonOnlyWhitespace() {
        assertThat(PythonText.strip("\u00a0 x \u2007\u202f\u0085\t")).isEqualTo("x");
        assertThat(PythonText.strip(null)).isEmpty();
    }
}
