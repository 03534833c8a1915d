package dev.toolbus.policy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.Json;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.text.Texts;
import dev.toolbus.tool.ToolArguments;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import dev.toolbus.tool.Visibility;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The built-in {@code tool_search} tool: finds deferred tools by name and description and returns
 * their definitions, so the model can call them.
 *
 * <p>It searches only {@link Visibility#DEFERRED deferred} tools that the session would be allowed
 * to call once found ({@link ConfiguredPolicy#decideForSearch}); the tools it returns are recorded in
 * the policy's {@link ToolDiscovery} for the calling stream, which makes them callable there (see
 * {@link PolicyConfig.Search}). Register it as a {@code CORE} tool; it is exempt from source modes and
 * allow lists (it can only reveal tools the session may use) but obeys deny lists and disabledTools.
 * Never cached or retried: each search records its findings.
 *
 * <p>Ranking: a tool whose name equals the whole query first; then per query word, 6 points when the
 * name equals it, 4 when the name contains it, 2 when the plugin id does, 1 when the description
 * does; ties by name. Tools with no point are not returned.
 */
public final class ToolSearch {

    /** The tool's name. */
    public static final String NAME = dev.toolbus.tool.BuiltInTools.TOOL_SEARCH;

    private ToolSearch() {
    }

    /**
     * The {@code tool_search} tool.
     *
     * @param registry where the deferred tools are registered
     * @param policy the policy in force (a {@link SwitchablePolicy} follows reloads)
     * @param locale the language of the result text and of the returned descriptions
     */
    public static ToolSpec spec(ToolRegistry registry, ConfiguredPolicy policy, DescriptionLocale locale) {
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(locale, "locale");
        Texts texts = Texts.of(locale);
        ToolDefinition def = ToolDefinition.builder(NAME)
                .description(texts.toolSearchDescription())
                .parameter(ToolParameter.of("query", ToolParamType.STRING, texts.toolSearchQueryParameter()))
                .parameter(ToolParameter.builder("limit", ToolParamType.INTEGER)
                        .description(texts.toolSearchLimitParameter())
                        .required(false).build())
                .sideEffecting(true)
                .idempotent(true) // it loads tools into the session: harmless to run again
                .build();
        return new ToolSpec(def, ToolHandler.sync((args, ctx) -> run(registry, policy, locale, args, ctx)));
    }

    private static ToolResult run(ToolRegistry registry, ConfiguredPolicy policy, DescriptionLocale locale,
                                  ToolArguments args, ToolContext ctx) {
        Texts texts = Texts.of(locale);
        String query = args.string("query", "").strip();
        int max = policy.config().search().maxResults();
        long limit = Math.max(1, Math.min(max, args.integer("limit", max)));
        CallContext cc = ctx.who();
        List<Hit> hits = new ArrayList<>();
        String q = query.toLowerCase(Locale.ROOT);
        String[] words = q.split("[\\s,;|/]+");
        for (ToolRegistry.Entry e : registry.entries()) {
            ToolDefinition d = e.tool().definition();
            if (d.visibility() != Visibility.DEFERRED) {
                continue;
            }
            int score = score(d, q, words, locale);
            if (score > 0 && policy.decideForSearch(d, ctx.streamId(), cc).allowed()) {
                hits.add(new Hit(d, score));
            }
        }
        hits.sort(Comparator.comparingInt(Hit::score).reversed().thenComparing(h -> h.def().name()));
        List<Hit> top = hits.subList(0, (int) Math.min(limit, hits.size()));
        List<String> names = new ArrayList<>();
        ObjectNode data = Json.mapper().createObjectNode();
        data.put("query", query);
        ArrayNode tools = data.putArray("tools");
        for (Hit h : top) {
            names.add(h.def().name());
            ObjectNode t = tools.addObject();
            t.put("name", h.def().name());
            t.put("description", h.def().description(locale));
            t.set("parameters", h.def().inputSchema(locale).deepCopy());
        }
        policy.discovery().found(ctx.streamId(), names);
        String text;
        if (top.isEmpty()) {
            text = texts.noToolsMatch(query);
        } else {
            text = texts.toolsFound(top.size()) + tools.toPrettyString();
        }
        return ToolResult.builder().content(text).data(data).build();
    }

    static int score(ToolDefinition d, String q, String[] words, DescriptionLocale locale) {
        String name = d.name().toLowerCase(Locale.ROOT);
        if (q.isEmpty()) {
            return 0;
        }
        int score = name.equals(q) ? 100 : 0;
        String desc = (d.description(locale) + " " + d.rawDescription() + " " + d.rawDetailedDescription())
                .toLowerCase(Locale.ROOT);
        String plugin = d.pluginId() == null ? "" : d.pluginId().toLowerCase(Locale.ROOT);
        for (String w : words) {
            if (w.isEmpty()) {
                continue;
            }
            if (name.equals(w)) {
                score += 6;
            } else if (name.contains(w)) {
                score += 4;
            }
            if (!plugin.isEmpty() && plugin.contains(w)) {
                score += 2;
            }
            if (desc.contains(w)) {
                score += 1;
            }
        }
        return score;
    }

    private record Hit(ToolDefinition def, int score) {
    }
}
