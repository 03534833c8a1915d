package dev.toolbus.rules;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.values.NullValue;
import java.util.ArrayList;
import java.util.List;

/**
 * A condition evaluated straight over the call's values, without CEL's interpreter, for the common
 * part of the language: literals, the variables and their fields, {@code has()}, indexes,
 * {@code &&}, {@code ||}, {@code !}, {@code ? :}, comparisons, arithmetic, {@code in}, {@code size},
 * {@code startsWith}, {@code endsWith}, {@code contains}, list literals, {@code .?} and
 * {@code orValue}. CEL's interpreter adapts every intermediate value and resolves every function at
 * run time (about 0.2 µs per operator); this walks a tree built once per rule.
 *
 * <p>It answers only where its answer is CEL's for certain: a value of a kind CEL would treat
 * differently (mixed numeric equality, an overflow, a missing key, an error of any sort) stops it
 * with {@link Fallback}, and the rule is then evaluated by CEL's program, which gives the answer
 * (or the error) of record. {@link #compile} returns {@code null} for a condition that uses anything
 * else (macros over lists, conversions, regular expressions, the string extensions, …): such a
 * rule is always evaluated by CEL. {@code DirectConditionTest} checks the two against each other.
 */
final class DirectCondition {

    /** Thrown where CEL's program must decide; carries no stack trace. */
    static final class Fallback extends Exception {
        private static final long serialVersionUID = 1L;
        static final Fallback INSTANCE = new Fallback();

        private Fallback() {
            super("evaluate with CEL", null, false, false);
        }
    }

    /** One node of the tree. */
    interface Node {
        Object eval(CallVariables v) throws Fallback;
    }

    private final Node root;

    private DirectCondition(Node root) {
        this.root = root;
    }

    /** Whether the condition holds; {@link Fallback} when CEL must decide. */
    boolean test(CallVariables v) throws Fallback {
        Object r = root.eval(v);
        if (r instanceof Boolean b) {
            return b;
        }
        throw Fallback.INSTANCE;
    }

    /** The direct form of a checked condition, or {@code null} when it uses something this does not evaluate. */
    static DirectCondition compile(CelAbstractSyntaxTree ast) {
        Node n = node(ast.getExpr());
        return n == null ? null : new DirectCondition(n);
    }

    private static Node node(CelExpr e) {
        return switch (e.getKind()) {
            case CONSTANT -> constant(e.constant());
            case IDENT -> ident(e.ident().name());
            case SELECT -> select(e.select());
            case CALL -> call(e.call());
            case LIST -> list(e.list());
            default -> null;
        };
    }

    private static Node constant(CelConstant c) {
        Object v = switch (c.getKind()) {
            case BOOLEAN_VALUE -> c.booleanValue();
            case INT64_VALUE -> c.int64Value();
            case DOUBLE_VALUE -> c.doubleValue();
            case STRING_VALUE -> c.stringValue();
            case NULL_VALUE -> NullValue.NULL_VALUE;
            default -> null;
        };
        if (v == null) {
            return null;
        }
        return x -> v;
    }

    private static Node ident(String name) {
        return switch (name) {
            case "args" -> CallVariables::args;
            case "ctx" -> CallVariables::ctx;
            case "tool" -> CallVariables::tool;
            case "turn" -> CallVariables::turn;
            case "caller" -> CallVariables::callerValue;
            default -> null;
        };
    }

    private static Node select(CelExpr.CelSelect s) {
        CelExpr operand = s.operand();
        String field = s.field();
        if (s.testOnly()) {
            if (operand.getKind() != CelExpr.ExprKind.Kind.IDENT && operand.getKind() != CelExpr.ExprKind.Kind.SELECT
                    && operand.getKind() != CelExpr.ExprKind.Kind.CALL) {
                return null;
            }
            if (operand.getKind() == CelExpr.ExprKind.Kind.IDENT && !operand.ident().name().equals("args")) {
                return null; // has() on a declared struct: left to CEL
            }
            Node of = node(operand);
            if (of == null) {
                return null;
            }
            return v -> {
                Object m = of.eval(v);
                if (m instanceof MapValue mv) {
                    return mv.containsKey(field);
                }
                throw Fallback.INSTANCE;
            };
        }
        if (operand.getKind() == CelExpr.ExprKind.Kind.IDENT) {
            Node fixed = declaredField(operand.ident().name(), field);
            if (fixed != null) {
                return fixed;
            }
        }
        Node of = node(operand);
        if (of == null) {
            return null;
        }
        return v -> {
            Object m = of.eval(v);
            if (m instanceof MapValue mv) {
                Object r = mv.get(field);
                if (r != null) {
                    return r;
                }
            }
            throw Fallback.INSTANCE;
        };
    }

    /** {@code ctx.user}, {@code turn.calls}, … read without building the variable's map. */
    private static Node declaredField(String var, String field) {
        return switch (var) {
            case "turn" -> switch (field) {
                case "calls" -> v -> v.call().turn().calls();
                case "side_effecting_calls" -> v -> v.call().turn().sideEffectingCalls();
                case "dangerous_calls" -> v -> v.call().turn().dangerousCalls();
                case "by_tool" -> CallVariables::byTool;
                default -> null;
            };
            case "caller" -> switch (field) {
                case "type" -> v -> v.call().caller().type().wireName();
                case "id" -> v -> v.call().caller().id();
                default -> null;
            };
            case "ctx" -> {
                int i = RuleContext.LAYOUT.indexOf(field);
                yield i < 0 ? null : v -> v.ctx().at(i);
            }
            case "tool" -> {
                int i = ToolRules.LAYOUT.indexOf(field);
                yield i < 0 ? null : v -> v.tool().at(i);
            }
            default -> null;
        };
    }

    private static Node list(CelExpr.CelList l) {
        if (!l.optionalIndices().isEmpty()) {
            return null;
        }
        List<CelExpr> elements = l.elements();
        Node[] nodes = new Node[elements.size()];
        for (int i = 0; i < nodes.length; i++) {
            nodes[i] = node(elements.get(i));
            if (nodes[i] == null) {
                return null;
            }
        }
        return v -> {
            Object[] out = new Object[nodes.length];
            for (int i = 0; i < nodes.length; i++) {
                out[i] = nodes[i].eval(v);
            }
            return java.util.Arrays.asList(out);
        };
    }

    private static Node call(CelExpr.CelCall c) {
        List<Node> args = new ArrayList<>(c.args().size() + 1);
        if (c.target().isPresent()) {
            Node t = node(c.target().get());
            if (t == null) {
                return null;
            }
            args.add(t);
        }
        for (CelExpr a : c.args()) {
            Node n = node(a);
            if (n == null) {
                return null;
            }
            args.add(n);
        }
        boolean member = c.target().isPresent();
        return switch (args.size()) {
            case 1 -> unary(c.function(), member, args.get(0));
            case 2 -> binary(c.function(), member, args.get(0), args.get(1));
            case 3 -> c.function().equals("_?_:_") && !member ? ternary(args.get(0), args.get(1), args.get(2)) : null;
            default -> null;
        };
    }

    private static Node unary(String f, boolean member, Node a) {
        return switch (f) {
            case "!_" -> member ? null : v -> !bool(a.eval(v));
            case "-_" -> member ? null : v -> {
                Object x = a.eval(v);
                if (x instanceof Long l && l != Long.MIN_VALUE) {
                    return -l;
                }
                if (x instanceof Double d) {
                    return -d;
                }
                throw Fallback.INSTANCE;
            };
            case "size" -> v -> size(a.eval(v));
            default -> null;
        };
    }

    private static Node ternary(Node c, Node yes, Node no) {
        return v -> bool(c.eval(v)) ? yes.eval(v) : no.eval(v);
    }

    private static Node binary(String f, boolean member, Node a, Node b) {
        if (member) {
            return switch (f) {
                case "startsWith" -> v -> string(a.eval(v)).startsWith(string(b.eval(v)));
                case "endsWith" -> v -> string(a.eval(v)).endsWith(string(b.eval(v)));
                case "contains" -> v -> string(a.eval(v)).contains(string(b.eval(v)));
                case "orValue" -> v -> {
                    Object o = a.eval(v);
                    Object d = b.eval(v);
                    if (o instanceof Opt opt) {
                        return opt.value != null ? opt.value : d;
                    }
                    throw Fallback.INSTANCE;
                };
                default -> null;
            };
        }
        return switch (f) {
            case "_&&_" -> v -> bool(a.eval(v)) && bool(b.eval(v));
            case "_||_" -> v -> bool(a.eval(v)) || bool(b.eval(v));
            case "_==_" -> v -> same(a.eval(v), b.eval(v));
            case "_!=_" -> v -> !same(a.eval(v), b.eval(v));
            case "_<_" -> v -> compare(a.eval(v), b.eval(v)) < 0;
            case "_<=_" -> v -> compare(a.eval(v), b.eval(v)) <= 0;
            case "_>_" -> v -> compare(a.eval(v), b.eval(v)) > 0;
            case "_>=_" -> v -> compare(a.eval(v), b.eval(v)) >= 0;
            case "_+_" -> v -> plus(a.eval(v), b.eval(v));
            case "_-_" -> v -> minus(a.eval(v), b.eval(v));
            case "_*_" -> v -> times(a.eval(v), b.eval(v));
            case "@in" -> v -> in(a.eval(v), b.eval(v));
            case "_[_]" -> v -> index(a.eval(v), b.eval(v));
            case "_?._" -> v -> optionalSelect(a.eval(v), b.eval(v));
            default -> null;
        };
    }

    /** An optional value ({@code args.?x}): {@code value} null when absent. */
    record Opt(Object value) {
        static final Opt NONE = new Opt(null);
    }

    private static boolean bool(Object x) throws Fallback {
        if (x instanceof Boolean b) {
            return b;
        }
        throw Fallback.INSTANCE;
    }

    private static String string(Object x) throws Fallback {
        if (x instanceof String s) {
            return s;
        }
        throw Fallback.INSTANCE;
    }

    private static long size(Object x) throws Fallback {
        if (x instanceof String s) {
            return s.codePointCount(0, s.length());
        }
        if (x instanceof List<?> l) {
            return l.size();
        }
        if (x instanceof MapValue m) {
            return m.size();
        }
        throw Fallback.INSTANCE;
    }

    /** Equality where both sides are of one plain kind; anything else is CEL's to decide. */
    private static boolean same(Object x, Object y) throws Fallback {
        if (x instanceof String s && y instanceof String t) {
            return s.equals(t);
        }
        if (x instanceof Long l && y instanceof Long m) {
            return l.longValue() == m.longValue();
        }
        if (x instanceof Boolean b && y instanceof Boolean c) {
            return b.booleanValue() == c.booleanValue();
        }
        if (x instanceof Double d && y instanceof Double e && !d.isNaN() && !e.isNaN()) {
            return d.doubleValue() == e.doubleValue();
        }
        if (x == NullValue.NULL_VALUE && y == NullValue.NULL_VALUE) {
            return true;
        }
        throw Fallback.INSTANCE;
    }

    /** The largest magnitude of a long that a double holds exactly. */
    private static final long EXACT = 1L << 53;

    private static int compare(Object x, Object y) throws Fallback {
        if (x instanceof Long l && y instanceof Long m) {
            return Long.compare(l, m);
        }
        double a = number(x);
        double b = number(y);
        return a < b ? -1 : a > b ? 1 : 0;
    }

    /** A number as a double when that is exact and not NaN. */
    private static double number(Object x) throws Fallback {
        if (x instanceof Long l && l <= EXACT && l >= -EXACT) {
            return l;
        }
        if (x instanceof Double d && !d.isNaN()) {
            return d;
        }
        throw Fallback.INSTANCE;
    }

    private static Object plus(Object x, Object y) throws Fallback {
        try {
            if (x instanceof Long l && y instanceof Long m) {
                return Math.addExact(l, m);
            }
        } catch (ArithmeticException e) {
            throw Fallback.INSTANCE;
        }
        if (x instanceof Double d && y instanceof Double e) {
            return d + e;
        }
        if (x instanceof String s && y instanceof String t) {
            return s.concat(t);
        }
        throw Fallback.INSTANCE;
    }

    private static Object minus(Object x, Object y) throws Fallback {
        try {
            if (x instanceof Long l && y instanceof Long m) {
                return Math.subtractExact(l, m);
            }
        } catch (ArithmeticException e) {
            throw Fallback.INSTANCE;
        }
        if (x instanceof Double d && y instanceof Double e) {
            return d - e;
        }
        throw Fallback.INSTANCE;
    }

    private static Object times(Object x, Object y) throws Fallback {
        try {
            if (x instanceof Long l && y instanceof Long m) {
                return Math.multiplyExact(l, m);
            }
        } catch (ArithmeticException e) {
            throw Fallback.INSTANCE;
        }
        if (x instanceof Double d && y instanceof Double e) {
            return d * e;
        }
        throw Fallback.INSTANCE;
    }

    private static boolean in(Object x, Object container) throws Fallback {
        if (container instanceof MapValue m) {
            if (x instanceof String k) {
                return m.containsKey(k);
            }
            throw Fallback.INSTANCE;
        }
        if (container instanceof List<?> list) {
            for (Object e : list) {
                if (same(x, e)) {
                    return true;
                }
            }
            return false;
        }
        throw Fallback.INSTANCE;
    }

    private static Object index(Object x, Object key) throws Fallback {
        if (x instanceof MapValue m && key instanceof String k) {
            Object r = m.get(k);
            if (r != null) {
                return r;
            }
        } else if (x instanceof List<?> l && key instanceof Long i && i >= 0 && i < l.size()) {
            return l.get((int) (long) i);
        }
        throw Fallback.INSTANCE;
    }

    private static Object optionalSelect(Object x, Object field) throws Fallback {
        if (!(field instanceof String f)) {
            throw Fallback.INSTANCE;
        }
        if (x instanceof Opt o) {
            if (o.value == null) {
                return Opt.NONE;
            }
            x = o.value;
        }
        if (x instanceof MapValue m) {
            Object r = m.get(f);
            return r == null ? Opt.NONE : new Opt(r);
        }
        throw Fallback.INSTANCE;
    }
}
