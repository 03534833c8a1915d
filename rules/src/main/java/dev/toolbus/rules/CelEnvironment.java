package dev.toolbus.rules;

import com.google.common.collect.ImmutableCollection;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelIssue;
import dev.cel.common.CelOptions;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.CelType;
import dev.cel.common.types.CelTypeProvider;
import dev.cel.common.types.ListType;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.types.StructType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.util.Optional;

/**
 * The one CEL environment every rule is compiled in: the declared variables and their types, the
 * standard functions and macros, optional values ({@code args.?x.orValue(0)}) and the string
 * extensions; ints and doubles compare with each other. Built once; thread-safe.
 */
final class CelEnvironment {

    /** Comprehensions ({@code all}, {@code exists}, {@code map}, …) stop with an error after this many steps. */
    static final int MAX_ITERATIONS = 10_000;
    /** The longest {@code when}, in code points. */
    static final int MAX_EXPRESSION_CHARS = 10_000;

    static final StructType CTX = struct("toolbus.rules.Context",
            ImmutableMap.<String, CelType>builder().put("user", SimpleType.STRING).put("permission", SimpleType.STRING)
                    .put("group", SimpleType.STRING).put("platform", SimpleType.STRING)
                    .put("channel", SimpleType.STRING).put("agent", SimpleType.STRING)
                    .put("stream", SimpleType.STRING).buildOrThrow());
    static final StructType TOOL = struct("toolbus.rules.Tool",
            ImmutableMap.<String, CelType>builder().put("name", SimpleType.STRING).put("source", SimpleType.STRING)
                    .put("plugin", SimpleType.STRING).put("risk", SimpleType.STRING)
                    .put("side_effecting", SimpleType.BOOL).put("dangerous", SimpleType.BOOL)
                    .put("groups", ListType.create(SimpleType.STRING)).buildOrThrow());
    static final StructType TURN = struct("toolbus.rules.Turn",
            ImmutableMap.<String, CelType>builder().put("calls", SimpleType.INT)
                    .put("side_effecting_calls", SimpleType.INT).put("dangerous_calls", SimpleType.INT)
                    .put("by_tool", MapType.create(SimpleType.STRING, SimpleType.INT)).buildOrThrow());
    static final StructType CALLER = struct("toolbus.rules.Caller",
            ImmutableMap.<String, CelType>builder().put("type", SimpleType.STRING).put("id", SimpleType.STRING)
                    .buildOrThrow());

    private static final CelOptions OPTIONS = CelOptions.current()
            .enableHeterogeneousNumericComparisons(true)
            .enableOptionalSyntax(true)
            .comprehensionMaxIterations(MAX_ITERATIONS)
            .maxExpressionCodePointSize(MAX_EXPRESSION_CHARS)
            .build();

    private static final CelCompiler COMPILER = CelCompilerFactory.standardCelCompilerBuilder()
            .setOptions(OPTIONS)
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .setTypeProvider(new Types())
            .addVar("args", MapType.create(SimpleType.STRING, SimpleType.DYN))
            .addVar("ctx", CTX)
            .addVar("tool", TOOL)
            .addVar("turn", TURN)
            .addVar("caller", CALLER)
            .addLibraries(CelExtensions.optional(), CelExtensions.strings())
            .build();

    private static final CelRuntime RUNTIME = CelRuntimeFactory.plannerRuntimeBuilder()
            .setOptions(OPTIONS)
            .addLibraries(CelExtensions.optional(), CelExtensions.strings())
            .build();

    private CelEnvironment() {
    }

    /**
     * Compiles and type-checks a condition.
     *
     * @throws IllegalArgumentException with the compiler's message when it does not parse or
     *     type-check, or its type is not {@code bool}
     */
    static CelRuntime.Program compile(String when) {
        CelAbstractSyntaxTree ast;
        try {
            ast = COMPILER.compile(when).getAst();
        } catch (CelValidationException e) {
            StringBuilder msg = new StringBuilder();
            for (CelIssue issue : e.getErrors()) {
                if (msg.length() > 0) {
                    msg.append("; ");
                }
                msg.append(issue.getMessage());
                int line = issue.getSourceLocation().getLine();
                int column = issue.getSourceLocation().getColumn();
                if (line > 0) {
                    msg.append(" (line ").append(line).append(", column ").append(column + 1).append(')');
                }
            }
            throw new IllegalArgumentException(msg.toString(), e);
        }
        CelType type = ast.getResultType();
        if (!type.equals(SimpleType.BOOL)) {
            throw new IllegalArgumentException("the condition has type " + type.name() + ", not bool"
                    + (type.equals(SimpleType.DYN) ? " (compare the value, e.g. args.flag == true)" : ""));
        }
        try {
            return RUNTIME.createProgram(ast);
        } catch (CelEvaluationException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    private static StructType struct(String name, ImmutableMap<String, CelType> fields) {
        return StructType.create(name, ImmutableSet.copyOf(fields.keySet()), f -> Optional.ofNullable(fields.get(f)));
    }

    /** Makes the struct types known to the checker. */
    @com.google.errorprone.annotations.Immutable
    private static final class Types implements CelTypeProvider {
        private static final ImmutableList<CelType> ALL = ImmutableList.of(CTX, TOOL, TURN, CALLER);

        @Override
        public ImmutableCollection<CelType> types() {
            return ALL;
        }

        @Override
        public Optional<CelType> findType(String typeName) {
            for (CelType t : ALL) {
                if (t.name().equals(typeName)) {
                    return Optional.of(t);
                }
            }
            return Optional.empty();
        }
    }
}
