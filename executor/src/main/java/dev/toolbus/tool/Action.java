package dev.toolbus.tool;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The legacy MaiBot {@code @Action}, converted to a tool as the SDK does: every parameter becomes an
 * optional string, the activation fields are kept as metadata, and the detailed description carries
 * the usage notes. Deprecated: use {@link Tool}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@Deprecated
public @interface Action {

    String name();

    String description() default "";

    /** always, keyword, random or never. */
    String activationType() default "always";

    String[] activationKeywords() default {};

    double activationProbability() default 1.0;

    String chatMode() default "normal";

    String[] actionRequire() default {};

    String[] associatedTypes() default {};

    boolean parallelAction() default false;

    String actionPrompt() default "";

    /** Extra metadata as {@code key=value} pairs. */
    String[] metadata() default {};
}
