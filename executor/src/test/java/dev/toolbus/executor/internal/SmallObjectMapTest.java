package dev.toolbus.executor.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.Json;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link SmallObjectMap} behaves as the {@link LinkedHashMap} an {@code ObjectNode} has by default. */
class SmallObjectMapTest {

    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    @Test
    void randomOperationsMatchALinkedHashMapBelowAndPastTheLimit() {
        Random rnd = new Random(24);
        for (int round = 0; round < 500; round++) {
            SmallObjectMap small = new SmallObjectMap(rnd.nextInt(4));
            Map<String, JsonNode> ref = new LinkedHashMap<>();
            int keys = 1 + rnd.nextInt(2 * SmallObjectMap.LIMIT + 4);
            for (int op = 0; op < 60; op++) {
                // a key made anew each time: found by equals, not only by identity
                String k = new String("k" + rnd.nextInt(keys));
                JsonNode v = F.numberNode(op);
                switch (rnd.nextInt(6)) {
                    case 0, 1, 2 -> assertThat(small.put(k, v)).isEqualTo(ref.put(k, v));
                    case 3 -> assertThat(small.remove(k)).isEqualTo(ref.remove(k));
                    case 4 -> {
                        Iterator<Map.Entry<String, JsonNode>> a = small.entrySet().iterator();
                        Iterator<Map.Entry<String, JsonNode>> b = ref.entrySet().iterator();
                        while (b.hasNext()) {
                            Map.Entry<String, JsonNode> eb = b.next();
                            Map.Entry<String, JsonNode> ea = a.next();
                            assertThat(ea).isEqualTo(eb);
                            if (eb.getKey().equals(k)) {
                                a.remove();
                                b.remove();
                            } else if (rnd.nextBoolean()) {
                                ea.setValue(v);
                                eb.setValue(v);
                            }
                        }
                        assertThat(a.hasNext()).isFalse();
                    }
                    default -> assertThat(small.get(k)).isEqualTo(ref.get(k));
                }
                assertThat(small.size()).isEqualTo(ref.size());
                assertThat(new ArrayList<>(small.keySet())).containsExactlyElementsOf(ref.keySet());
                assertThat(small).isEqualTo(ref);
                assertThat(small.hashCode()).isEqualTo(ref.hashCode());
            }
        }
    }

    @Test
    void anObjectNodeOverItEqualsAndWritesAsTheDefaultOne() throws Exception {
        ObjectNode parsed = (ObjectNode) ArgumentParser.parse("{\"b\":1,\"a\":{\"x\":[1,2]},\"c\":\"t\"}", 3);
        JsonNode plain = Json.mapper().readTree("{\"b\":1,\"a\":{\"x\":[1,2]},\"c\":\"t\"}");
        assertThat(parsed).isEqualTo(plain);
        assertThat(plain).isEqualTo(parsed);
        assertThat(parsed.hashCode()).isEqualTo(plain.hashCode());
        assertThat(Json.mapper().writeValueAsString(parsed)).isEqualTo("{\"b\":1,\"a\":{\"x\":[1,2]},\"c\":\"t\"}");
        parsed.put("d", true);
        parsed.remove("b");
        assertThat(Json.mapper().writeValueAsString(parsed)).isEqualTo("{\"a\":{\"x\":[1,2]},\"c\":\"t\",\"d\":true}");
    }

    @Test
    void anObjectOfManyKeysParsesInOrderAndStillRefusesADuplicate() throws Exception {
        StringBuilder json = new StringBuilder("{");
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            names.add("p" + i);
            json.append(i == 0 ? "" : ",").append("\"p").append(i).append("\":").append(i);
        }
        ObjectNode o = (ObjectNode) ArgumentParser.parse(json + "}", 1);
        assertThat(new ArrayList<>(o.properties()).stream().map(Map.Entry::getKey).toList())
                .containsExactlyElementsOf(names);
        assertThat(o.get("p39").intValue()).isEqualTo(39);
        assertThatThrownBy(() -> ArgumentParser.parse(json + ",\"p3\":1}", 1))
                .hasMessageContaining("duplicate key 'p3'");
        assertThatThrownBy(() -> ArgumentParser.parse("{\"a\":1,\"a\":2}", 1))
                .hasMessageContaining("duplicate key 'a'");
    }

    @Test
    void changingTheMapDuringIterationIsRefused() {
        SmallObjectMap m = new SmallObjectMap(2);
        m.put("a", F.numberNode(1));
        m.put("b", F.numberNode(2));
        Iterator<Map.Entry<String, JsonNode>> it = m.entrySet().iterator();
        it.next();
        m.put("c", F.numberNode(3));
        assertThatThrownBy(it::next).isInstanceOf(ConcurrentModificationException.class);
        // a put that moves the keys into the large map, during an iteration
        SmallObjectMap full = new SmallObjectMap(SmallObjectMap.LIMIT);
        for (int i = 0; i < SmallObjectMap.LIMIT; i++) {
            full.put("k" + i, F.numberNode(i));
        }
        Iterator<Map.Entry<String, JsonNode>> it2 = full.entrySet().iterator();
        it2.next();
        full.put("one-more", F.numberNode(0));
        assertThat(it2.hasNext()).isTrue();
        assertThatThrownBy(it2::next).isInstanceOf(ConcurrentModificationException.class);
    }
}
