package dev.toolbus.tool;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Declares a method parameter of a {@link Tool} or {@link Action} method as a tool argument. */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface Param {

    /** The argument name; defaults to the Java parameter name (compile with {@code -parameters}). */
    String name() default "";

    /** What the model should pass. */
    String description() default "";

    /** The type; by default inferred from the Java type. */
    ToolParamType type() default ToolParamType.STRING;

    /** Set when {@link #type()} is given explicitly (annotations cannot express "unset"). */
    boolean typeSet() default false;

    /** Whether the argument is required (the MaiBot default: {@code true}). */
    boolean required() default true;

    /**
     * Allowed values. For string parameters the texts as they are; for other types each is read as a
     * JSON literal ({@code {"1", "2"}} on an integer parameter means {@code [1, 2]}). An enum-typed Java
     * parameter without this gets its constant names.
     */
    String[] enumValues() default {};

    /**
     * The default, as a JSON literal ({@code 5}, {@code false}, {@code [1, 2]}); empty for none. For a
     * string parameter a quoted JSON string is unquoted and any other text is the string itself
     * ({@code "a"} and {@code "\"a\""} both mean {@code a}). Used when the argument is missing.
     */
    String defaultValue() default "";

    /**
     * JSON Schema of array items, as a JSON object; empty to infer it from the Java element type
     * ({@code List<String>} → {@code {"type":"string"}}). An array whose items cannot be inferred is
     * refused.
     */
    String items() default "";
}
