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

    /** Allowed values. */
    String[] enumValues() default {};

    /** The default, as a JSON literal ({@code 5}, {@code "a"}, {@code false}); empty for none. */
    String defaultValue() default "";

    /** JSON Schema of array items, as JSON; empty for none. */
    String items() default "";
}
