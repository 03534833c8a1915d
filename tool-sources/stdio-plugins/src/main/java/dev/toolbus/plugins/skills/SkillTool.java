package dev.toolbus.plugins.skills;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.Json;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/** The {@code load_skill} tool over the current catalogue. */
final class SkillTool {

    private SkillTool() {
    }

    /**
     * The tool: its description lists the skills of the catalogue it was made from; a call answers from
     * the catalogue current at call time, and reports each skill it loaded to {@code loaded}
     * (stream id, skill name).
     */
    static ToolSpec spec(Supplier<SkillCatalog> catalog, BiConsumer<String, String> loaded) {
        SkillCatalog now = catalog.get();
        ObjectNode schema = Json.mapper().createObjectNode().put("type", "object");
        schema.putObject("properties").putObject("name").put("type", "string")
                .put("description", "The name of the skill to load, as listed");
        schema.putArray("required").add("name");
        String description = now.skills().isEmpty()
                ? "Load the full instructions of a skill document. No skills are installed."
                : "Load the full instructions of a skill document before doing a task it covers. Skills:\n"
                        + now.listing();
        // not cached: a load is remembered per stream, and a reload may change the text
        ToolDefinition def = ToolDefinition.builder(SkillCatalog.TOOL_NAME).description(description)
                .inputSchema(schema).metadata("source", "skills").cacheable(false).build();
        return new ToolSpec(def, (args, ctx) -> Mono.fromSupplier(() -> {
            ToolResult r = catalog.get().load(args.string("name", ""));
            if (!r.isError()) {
                loaded.accept(ctx.streamId(), String.valueOf(r.metadata().get("skill")));
            }
            return r;
        }));
    }
}
