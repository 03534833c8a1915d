package dev.toolbus.executor.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Schema;
import dev.toolbus.internal.JsonSchemas;
import java.util.List;

/**
 * A tool's output schema, compiled once per definition: checks the {@code data} of its successful
 * results. A result whose data does not validate (or that has none) becomes an {@code INVALID_OUTPUT}
 * error naming the path, so what the model and a programmatic caller read is always valid.
 */
final class OutputCheck {

    /** The most problems a message lists. */
    static final int MAX_SHOWN = 3;

    private final Schema schema;

    private OutputCheck(Schema schema) {
        this.schema = schema;
    }

    /** The check of a definition's output schema, or {@code null} when it declares none. */
    static OutputCheck of(dev.toolbus.tool.ToolDefinition def) {
        return def.hasOutputSchema() ? new OutputCheck(JsonSchemas.compile(def.outputSchema())) : null;
    }

    /** What is wrong with the data ({@code data.total: must be >= 0; …}), or {@code null} when it validates. */
    String problems(JsonNode data) {
        List<com.networknt.schema.Error> errors = schema.validate(data);
        if (errors.isEmpty()) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        int shown = 0;
        for (com.networknt.schema.Error e : errors) {
            if (shown == MAX_SHOWN) {
                b.append("; and ").append(errors.size() - MAX_SHOWN).append(" more");
                break;
            }
            if (shown++ > 0) {
                b.append("; ");
            }
            b.append(JsonSchemas.describeUnder("data", e, schema.getSchemaNode()));
        }
        return b.toString();
    }
}
