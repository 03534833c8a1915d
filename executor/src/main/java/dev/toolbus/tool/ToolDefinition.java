package dev.toolbus.tool;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.CallerType;
import dev.toolbus.protocol.Risk;
import dev.toolbus.text.DescriptionLocale;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The immutable definition of one tool: its name, descriptions, parameters (structured, dict-style or
 * a raw JSON Schema) and execution hints.
 *
 * <p>Descriptions and the JSON Schema follow the MaiBot SDK exactly: the model-facing description is
 * {@code brief_description > description > "Tool {name}"} (stripped); the detailed description is the
 * parameter block followed by the given detailed text; structured parameters map to JSON Schema as
 * {@code ToolParameterInfo} does. Generated text depends on the {@link DescriptionLocale}.
 *
 * <pre>{@code
 * ToolDefinition def = ToolDefinition.builder("search_web")
 *     .description("Search the web")
 *     .parameter(ToolParameter.of("query", ToolParamType.STRING, "Search keywords"))
 *     .parameter(ToolParameter.builder("limit", ToolParamType.INTEGER).required(false).defaultValue(5).build())
 *     .timeout(Duration.ofSeconds(10))
 *     .build();
 * }</pre>
 */
public final class ToolDefinition {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.:-]{1,128}");

    private final String name;
    private final String description;
    private final String briefDescription;
    private final String detailedDescription;
    private final List<ToolParameter> parameters;
    private final Map<String, Object> rawParameters;
    private final ObjectNode inputSchema;
    private final Map<String, Object> metadata;
    private final Duration timeout;
    private final Integer maxResultChars;
    private final boolean sideEffecting;
    private final boolean idempotent;
    private final boolean dangerous;
    private final Risk risk;
    private final CacheScope cacheScope;
    private final boolean cacheable;
    private final Visibility visibility;
    private final String pluginId;
    private final String originalName;
    private final Set<String> channels;
    private final boolean optional;
    private final Set<String> groups;
    private final String requiredPermission;
    private final LegacyAction legacyAction;
    private final Set<CallerType> allowedCallers;
    private final ObjectNode outputSchema;
    private final Map<DescriptionLocale, ObjectNode> schemas = new EnumMap<>(DescriptionLocale.class);
    private final Map<DescriptionLocale, String> descriptions = new EnumMap<>(DescriptionLocale.class);
    private final Map<DescriptionLocale, String> detailed = new EnumMap<>(DescriptionLocale.class);

    private ToolDefinition(Builder b) {
        this.name = b.name;
        this.description = b.description;
        this.briefDescription = b.briefDescription;
        this.detailedDescription = b.detailedDescription;
        this.parameters = List.copyOf(b.parameters);
        this.rawParameters = b.rawParameters == null ? null
                : Collections.unmodifiableMap(new LinkedHashMap<>(b.rawParameters));
        this.inputSchema = b.inputSchema == null ? null : b.inputSchema.deepCopy();
        Map<String, Object> meta = new LinkedHashMap<>(b.metadata);
        if (b.legacyAction != null) {
            if (!b.parameters.isEmpty() || b.rawParameters != null || b.inputSchema != null) {
                throw new IllegalArgumentException("tool '" + b.name
                        + "': a legacy Action takes its parameters from the Action, not from parameters()");
            }
            meta.putAll(LegacyActions.metadata(b.legacyAction));
        }
        this.metadata = Collections.unmodifiableMap(meta);
        this.timeout = b.timeout;
        this.maxResultChars = b.maxResultChars;
        this.sideEffecting = b.sideEffecting;
        this.idempotent = b.idempotent;
        this.dangerous = b.dangerous;
        this.risk = b.risk;
        this.cacheScope = b.cacheScope;
        this.cacheable = b.cacheable;
        this.visibility = b.visibility;
        this.pluginId = b.pluginId;
        this.originalName = b.originalName == null || b.originalName.isBlank() || b.originalName.equals(b.name)
                ? null : b.originalName;
        this.channels = Collections.unmodifiableSet(new LinkedHashSet<>(b.channels));
        this.optional = b.optional;
        this.groups = Collections.unmodifiableSet(new LinkedHashSet<>(b.groups));
        this.requiredPermission = b.requiredPermission;
        this.legacyAction = b.legacyAction;
        this.allowedCallers = Collections.unmodifiableSet(java.util.EnumSet.copyOf(b.allowedCallers));
        this.outputSchema = b.outputSchema == null ? null : b.outputSchema.deepCopy();
        for (DescriptionLocale l : DescriptionLocale.values()) {
            schemas.put(l, ToolSchemas.model(this, l));
            descriptions.put(l, ToolDescriptions.description(name, briefDescription, description, l));
            detailed.put(l, ToolDescriptions.detailed(this, l));
        }
    }

    /**
     * Starts a definition.
     *
     * @param name the tool name: letters, digits, {@code _ . : -}, 1 to 128 characters
     * @throws IllegalArgumentException for an invalid name
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /**
     * Starts the definition of a tool converted from a legacy MaiBot {@code @Action}, as the SDK converts
     * it: the description is {@code description} (else {@code Tool {name}}); every Action parameter
     * becomes an optional string whose empty description reads {@code 兼容旧 Action 参数} /
     * {@code Legacy Action parameter}; the activation fields become metadata ({@code legacy_action},
     * {@code legacy_component_type}, {@code activation_type}, …); the detailed description lists the
     * parameters, usage notes, message types and activation. Logs a deprecation warning.
     *
     * @param name the tool name
     * @param description the Action's description, may be empty
     * @param action the Action's fields
     * @return a builder; add metadata, a timeout or extra detailed text, then {@code build()}
     */
    public static Builder fromLegacyAction(String name, String description, LegacyAction action) {
        Objects.requireNonNull(action, "action");
        Builder b = new Builder(name).description(description).legacyAction(action);
        LegacyActions.warnDeprecated(name);
        return b;
    }

    /** The tool name the model calls. */
    public String name() {
        return name;
    }

    /**
     * The description the model reads: {@code brief_description}, else {@code description}, else
     * {@code Tool {name}} ({@code 工具 {name}} in {@link DescriptionLocale#ZH}), stripped.
     */
    public String description(DescriptionLocale locale) {
        return descriptions.get(locale);
    }

    /**
     * The detailed description: the parameter block ({@code Parameter details:} /
     * {@code 参数说明：}) followed by the given detailed text, as the MaiBot SDK builds it.
     */
    public String detailedDescription(DescriptionLocale locale) {
        return detailed.get(locale);
    }

    /** The {@code description} given to the builder, as given. */
    public String rawDescription() {
        return description;
    }

    /** The {@code brief_description} given to the builder, as given. */
    public String rawBriefDescription() {
        return briefDescription;
    }

    /** The {@code detailed_description} given to the builder, as given. */
    public String rawDetailedDescription() {
        return detailedDescription;
    }

    /** Structured parameters, in declaration order (empty for dict-style or raw-schema tools). */
    public List<ToolParameter> parameters() {
        return parameters;
    }

    /** Dict-style (legacy) parameters as given, or {@code null}. */
    public Map<String, Object> rawParameters() {
        return rawParameters;
    }

    /**
     * The JSON Schema of the arguments as sent to the model, in {@link DescriptionLocale#EN}: always an
     * object schema with {@code properties} and {@code required}. Do not modify the returned node.
     *
     * @see #inputSchema(DescriptionLocale)
     */
    public ObjectNode inputSchema() {
        return schemas.get(DescriptionLocale.EN);
    }

    /**
     * The JSON Schema of the arguments as MaiBot's host sends it to the model. The locale only matters
     * for generated text inside the schema (the default description of legacy Action parameters).
     * Do not modify the returned node.
     *
     * <ul>
     *   <li>structured parameters: {@code type} ({@code float} → {@code number}), {@code description}
     *       (always), {@code enum} (when non-empty), {@code default} (when set), {@code items} (arrays),
     *       {@code properties}, {@code required} (always) and {@code additionalProperties} (objects);</li>
     *   <li>dict-style parameters and raw schemas: kept verbatim, {@code required: []} added when missing;</li>
     *   <li>no parameters: {@code {"type":"object","properties":{},"required":[]}}.</li>
     * </ul>
     */
    public ObjectNode inputSchema(DescriptionLocale locale) {
        return schemas.get(Objects.requireNonNull(locale, "locale"));
    }

    /** Extra metadata (flat keys), as given. */
    public Map<String, Object> metadata() {
        return metadata;
    }

    /** The tool's own timeout, or {@code null} for the executor's. */
    public Duration timeout() {
        return timeout;
    }

    /**
     * The tool's own limit on its result's text in characters ({@code 0}: never cut), or {@code null}
     * for the executor's {@code execution.maxResultChars}. A per-tool entry in the config wins over it.
     */
    public Integer maxResultChars() {
        return maxResultChars;
    }

    /** Whether a call changes the world: never retried, never cached. */
    public boolean sideEffecting() {
        return sideEffecting;
    }

    /**
     * Whether a side-effecting tool is nonetheless safe to run again with the same arguments (for example
     * it passes {@code ToolContext.idempotencyKey()} on, so its service does the work once). Such a call
     * writes nothing to the call journal and, when its turn is run again after its instance died, runs
     * again instead of ending {@code OUTCOME_UNKNOWN}. It is still never retried on error or cached.
     */
    public boolean idempotent() {
        return idempotent;
    }

    /**
     * Whether toolbus may run a call again when its turn is run again after an interruption: the tool is
     * not side-effecting, or is declared {@link #idempotent()}. Calls that are not retry-safe go through
     * the call journal: never run twice.
     */
    public boolean retrySafe() {
        return !sideEffecting || idempotent;
    }

    /** Whether the tool is dangerous: never cached; the policy may require permission for it. */
    public boolean dangerous() {
        return dangerous;
    }

    /** The risk the tool declares for the approval step, or {@code null} when it declares none. */
    public Risk risk() {
        return risk;
    }

    /** Who shares cached results of this tool. */
    public CacheScope cacheScope() {
        return cacheScope;
    }

    /**
     * Whether results may be cached at all (with {@code execution.cacheResults} on, and unless the tool
     * is side-effecting, dangerous or {@link CacheScope#NONE}). Java tools default to {@code true};
     * plugin tools of every kind default to {@code false} and opt in by declaring themselves cacheable
     * (or by being listed in {@code execution.cacheTools}).
     */
    public boolean cacheable() {
        return cacheable;
    }

    /** Whether the tool is offered to the model. */
    public Visibility visibility() {
        return visibility;
    }

    /** The plugin that declared this tool, or {@code null}. */
    public String pluginId() {
        return pluginId;
    }

    /**
     * The name the tool's source gave it when toolbus registers it under another one (an MCP tool
     * renamed {@code <server>__<tool>} on a clash, or with its characters sanitised), else {@code null}.
     * Policy lists match it, and {@code <pluginId>:<originalName>}, as well as {@link #name()}.
     */
    public String originalName() {
        return originalName;
    }

    /** Channels this tool is limited to; empty for every channel. */
    public Set<String> channels() {
        return channels;
    }

    /**
     * Whether the tool is opt-in: a configured policy offers it only when an allow list names it
     * explicitly (its name, its plugin id or {@code group:plugins}; {@code *} does not count).
     */
    public boolean optional() {
        return optional;
    }

    /** Policy groups this tool declares itself a member of (besides the groups the config lists it in). */
    public Set<String> groups() {
        return groups;
    }

    /**
     * The permission level a caller needs ({@code member}, {@code admin}, {@code owner},
     * {@code master}), or {@code null} for none. A level the policy does not know denies every caller.
     */
    public String requiredPermission() {
        return requiredPermission;
    }

    /**
     * Who may call the tool: {@link CallerType#DIRECT} only unless it says more (a call from code the
     * model runs is then refused {@code NOT_ALLOWED}). An operator can override it per tool in config.
     */
    public Set<CallerType> allowedCallers() {
        return allowedCallers;
    }

    /**
     * The JSON Schema its results' {@code data} follows, or {@code null} when it declares none. A result
     * whose data does not validate becomes an {@code INVALID_OUTPUT} error.
     */
    public ObjectNode outputSchema() {
        return outputSchema == null ? null : outputSchema.deepCopy();
    }

    /** Whether it declares an output schema. */
    public boolean hasOutputSchema() {
        return outputSchema != null;
    }

    /** The legacy {@code @Action} this tool was converted from, or {@code null}. */
    public LegacyAction legacyAction() {
        return legacyAction;
    }

    /** Whether calls get the legacy Action payload ({@code action_data}, {@code reasoning}). */
    public boolean isLegacyAction() {
        return legacyAction != null;
    }

    /** A builder initialised from this definition. */
    public Builder toBuilder() {
        Builder b = new Builder(name);
        b.description = description;
        b.briefDescription = briefDescription;
        b.detailedDescription = detailedDescription;
        b.parameters.addAll(parameters);
        b.rawParameters = rawParameters;
        b.inputSchema = inputSchema;
        b.metadata.putAll(metadata);
        b.timeout = timeout;
        b.maxResultChars = maxResultChars;
        b.sideEffecting = sideEffecting;
        b.idempotent = idempotent;
        b.dangerous = dangerous;
        b.risk = risk;
        b.cacheScope = cacheScope;
        b.cacheable = cacheable;
        b.visibility = visibility;
        b.pluginId = pluginId;
        b.originalName = originalName;
        b.channels.addAll(channels);
        b.optional = optional;
        b.groups.addAll(groups);
        b.requiredPermission = requiredPermission;
        b.legacyAction = legacyAction;
        b.allowedCallers = java.util.EnumSet.copyOf(allowedCallers);
        b.outputSchema = outputSchema;
        return b;
    }

    /** The raw schema override, or {@code null} (package use). */
    ObjectNode rawInputSchema() {
        return inputSchema;
    }

    @Override
    public String toString() {
        return "ToolDefinition{" + name + '}';
    }

    /**
     * The fields of a legacy MaiBot {@code @Action} kept on its converted tool.
     *
     * @param activationType always, keyword, random, never
     * @param activationKeywords keywords for keyword activation
     * @param activationProbability probability for random activation
     * @param chatMode the chat mode
     * @param actionParameters parameter name → description, in order
     * @param actionRequire usage notes
     * @param associatedTypes message types
     * @param parallelAction whether the action may run in parallel
     * @param actionPrompt the original prompt
     */
    public record LegacyAction(
            String activationType,
            List<String> activationKeywords,
            double activationProbability,
            String chatMode,
            Map<String, String> actionParameters,
            List<String> actionRequire,
            List<String> associatedTypes,
            boolean parallelAction,
            String actionPrompt) {

        /** Applies the SDK defaults ({@code always}, {@code normal}, empty lists) and copies the collections. */
        public LegacyAction {
            activationType = activationType == null ? "always" : activationType;
            activationKeywords = activationKeywords == null ? List.of() : List.copyOf(activationKeywords);
            chatMode = chatMode == null ? "normal" : chatMode;
            actionParameters = actionParameters == null ? Map.of()
                    : Collections.unmodifiableMap(new LinkedHashMap<>(actionParameters));
            actionRequire = actionRequire == null ? List.of() : List.copyOf(actionRequire);
            associatedTypes = associatedTypes == null ? List.of() : List.copyOf(associatedTypes);
            actionPrompt = actionPrompt == null ? "" : actionPrompt;
        }
    }

    /** Builder of {@link ToolDefinition}. Setters validate eagerly. */
    public static final class Builder {
        private final String name;
        private String description = "";
        private String briefDescription = "";
        private String detailedDescription = "";
        private final List<ToolParameter> parameters = new ArrayList<>();
        private Map<String, Object> rawParameters;
        private ObjectNode inputSchema;
        private final Map<String, Object> metadata = new LinkedHashMap<>();
        private Duration timeout;
        private Integer maxResultChars;
        private boolean sideEffecting;
        private boolean idempotent;
        private boolean dangerous;
        private Risk risk;
        private CacheScope cacheScope = CacheScope.STREAM_USER;
        private boolean cacheable = true;
        private Visibility visibility = Visibility.VISIBLE;
        private String pluginId;
        private String originalName;
        private final Set<String> channels = new LinkedHashSet<>();
        private boolean optional;
        private final Set<String> groups = new LinkedHashSet<>();
        private String requiredPermission;
        private LegacyAction legacyAction;
        private java.util.EnumSet<CallerType> allowedCallers = java.util.EnumSet.of(CallerType.DIRECT);
        private ObjectNode outputSchema;

        private Builder(String name) {
            Objects.requireNonNull(name, "name");
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(
                        "tool name must be 1-128 characters of letters, digits, _ . : - but was '" + name + "'");
            }
            this.name = name;
        }

        /** The description (the SDK's compatibility field; {@code briefDescription} wins over it). */
        public Builder description(String description) {
            this.description = Objects.requireNonNullElse(description, "");
            return this;
        }

        /** The brief description the model reads. */
        public Builder briefDescription(String briefDescription) {
            this.briefDescription = Objects.requireNonNullElse(briefDescription, "");
            return this;
        }

        /** Extra detailed text, appended after the generated parameter block. */
        public Builder detailedDescription(String detailedDescription) {
            this.detailedDescription = Objects.requireNonNullElse(detailedDescription, "");
            return this;
        }

        /** Adds a structured parameter. */
        public Builder parameter(ToolParameter parameter) {
            if (rawParameters != null || inputSchema != null) {
                throw new IllegalStateException("parameters were already given as a map or a schema");
            }
            for (ToolParameter p : parameters) {
                if (p.name().equals(parameter.name())) {
                    throw new IllegalArgumentException("duplicate parameter '" + parameter.name() + "'");
                }
            }
            parameters.add(parameter);
            return this;
        }

        /** Adds structured parameters. */
        public Builder parameters(List<ToolParameter> list) {
            list.forEach(this::parameter);
            return this;
        }

        /**
         * Dict-style parameters (MaiBot's legacy form): either an object schema (has {@code type:
         * object} or {@code properties}), used as is, or a map of property name → property schema,
         * where a truthy {@code required} is lifted to the object's {@code required} list and
         * non-map entries are dropped.
         */
        public Builder parameters(Map<String, Object> dict) {
            if (!parameters.isEmpty() || inputSchema != null) {
                throw new IllegalStateException("parameters were already given");
            }
            this.rawParameters = new LinkedHashMap<>(dict);
            return this;
        }

        /** A raw JSON Schema for the arguments, kept verbatim ({@code required: []} added if missing). */
        public Builder inputSchema(ObjectNode schema) {
            if (!parameters.isEmpty() || rawParameters != null) {
                throw new IllegalStateException("parameters were already given");
            }
            this.inputSchema = Objects.requireNonNull(schema, "schema").deepCopy();
            return this;
        }

        /** Adds a metadata entry. */
        public Builder metadata(String key, Object value) {
            metadata.put(Objects.requireNonNull(key, "key"), value);
            return this;
        }

        /** Adds metadata entries. */
        public Builder metadata(Map<String, ?> entries) {
            entries.forEach(this::metadata);
            return this;
        }

        /** The tool's own timeout, overriding the executor's (at least 1 ms). */
        public Builder timeout(Duration timeout) {
            if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
                throw new IllegalArgumentException("timeout must be positive");
            }
            this.timeout = timeout;
            return this;
        }

        /**
         * The tool's own limit on its result's text in characters, overriding the executor's
         * {@code maxResultChars}: {@code 0} never cuts its results, {@code null} uses the executor's.
         */
        public Builder maxResultChars(Integer chars) {
            if (chars != null && chars < 0) {
                throw new IllegalArgumentException("maxResultChars must be >= 0 (0: never cut)");
            }
            this.maxResultChars = chars;
            return this;
        }

        /** Marks the tool as side-effecting: never retried or cached. */
        public Builder sideEffecting(boolean value) {
            this.sideEffecting = value;
            return this;
        }

        /**
         * Declares a side-effecting tool safe to run again (see {@link ToolDefinition#idempotent()}): after an
         * interruption it runs again rather than ending {@code OUTCOME_UNKNOWN}. Meaningless without
         * {@link #sideEffecting(boolean)} (a tool that is not side-effecting is retry-safe anyway).
         */
        public Builder idempotent(boolean value) {
            this.idempotent = value;
            return this;
        }

        /** Marks the tool as dangerous: never cached, gated by the policy. */
        public Builder dangerous(boolean value) {
            this.dangerous = value;
            return this;
        }

        /** Declares the tool's risk for the approval step; {@code null} leaves it undeclared. */
        public Builder risk(Risk value) {
            this.risk = value;
            return this;
        }

        public Builder cacheScope(CacheScope scope) {
            this.cacheScope = Objects.requireNonNull(scope, "scope");
            return this;
        }

        /** Whether results may be cached (default {@code true}); see {@link ToolDefinition#cacheable()}. */
        public Builder cacheable(boolean value) {
            this.cacheable = value;
            return this;
        }

        public Builder visibility(Visibility visibility) {
            this.visibility = Objects.requireNonNull(visibility, "visibility");
            return this;
        }

        public Builder pluginId(String pluginId) {
            this.pluginId = pluginId;
            return this;
        }

        /** The name the tool's source gave it, when it is registered under another (see {@link ToolDefinition#originalName()}). */
        public Builder originalName(String originalName) {
            this.originalName = originalName;
            return this;
        }

        /** Limits the tool to these channels. */
        public Builder channels(Iterable<String> names) {
            names.forEach(channels::add);
            return this;
        }

        /** Marks the tool as opt-in: offered only when an allow list names it explicitly. */
        public Builder optional(boolean value) {
            this.optional = value;
            return this;
        }

        /** Declares membership of these policy groups. */
        public Builder groups(Iterable<String> names) {
            names.forEach(n -> groups.add(Objects.requireNonNull(n, "group")));
            return this;
        }

        /** The permission level a caller needs ({@code member}, {@code admin}, {@code owner}, {@code master}). */
        public Builder requiredPermission(String level) {
            this.requiredPermission = level == null || level.isBlank() ? null : level.strip();
            return this;
        }

        /**
         * Marks this tool as converted from a legacy {@code @Action}: its parameters, detailed text and
         * metadata keys then come from the Action. Prefer {@link ToolDefinition#fromLegacyAction}.
         */
        public Builder legacyAction(LegacyAction action) {
            this.legacyAction = action;
            return this;
        }

        /**
         * Who may call the tool (default: {@link CallerType#DIRECT} only). Give
         * {@code allowedCallers(DIRECT, PROGRAMMATIC)} for a tool that code the model runs may call too.
         *
         * @throws IllegalArgumentException when none is given
         */
        public Builder allowedCallers(CallerType... types) {
            return allowedCallers(List.of(types));
        }

        /**
         * Who may call the tool (default: {@link CallerType#DIRECT} only).
         *
         * @throws IllegalArgumentException when the collection is empty
         */
        public Builder allowedCallers(java.util.Collection<CallerType> types) {
            if (types.isEmpty()) {
                throw new IllegalArgumentException("tool '" + name + "': allowedCallers needs at least one caller");
            }
            java.util.EnumSet<CallerType> set = java.util.EnumSet.noneOf(CallerType.class);
            for (CallerType t : types) {
                set.add(Objects.requireNonNull(t, "caller type"));
            }
            this.allowedCallers = set;
            return this;
        }

        /**
         * The JSON Schema of the results' {@code data} ({@code null}: none). The registry refuses a
         * definition whose output schema is itself invalid.
         */
        public Builder outputSchema(ObjectNode schema) {
            this.outputSchema = schema == null ? null : schema.deepCopy();
            return this;
        }

        /**
         * Builds the definition.
         *
         * @throws IllegalArgumentException when the parameters cannot form a valid schema
         *     (for example an array parameter without {@code items})
         */
        public ToolDefinition build() {
            return new ToolDefinition(this);
        }
    }
}
