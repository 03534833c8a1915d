package dev.toolbus.layout;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The house rule on argument lists: no public constructor (a record's canonical one included) of a
 * public type of the executor module's API takes three or more arguments of one type in a row, where
 * swapped arguments compile and mean something else. Such types are built with a builder instead.
 * Read from the compiled classes of every package outside {@code internal}, so nested types count too.
 */
class PositionalConstructorsTest {

    /** The longest run of one parameter type a public constructor may have. */
    static final int MAX_RUN = 2;

    @Test
    void theClassesAreRead() {
        // guards the check below against passing on an empty read
        assertThat(apiPackages()).contains("dev.toolbus.protocol", "dev.toolbus.executor.settings", "dev.toolbus.tool")
                .noneMatch(p -> p.contains(".internal"));
        assertThat(classes("dev.toolbus.protocol")).contains("dev.toolbus.protocol.ToolResultEvent",
                "dev.toolbus.protocol.ToolResultEvent$Builder", "dev.toolbus.protocol.CallContext");
    }

    @Test
    void noPublicConstructorTakesARunOfSameTypedArguments() throws Exception {
        List<String> offenders = new ArrayList<>();
        for (String pkg : apiPackages()) {
            for (String name : classes(pkg)) {
                Class<?> c = Class.forName(name, false, getClass().getClassLoader());
                if (!isPublicApi(c)) {
                    continue;
                }
                for (Constructor<?> k : c.getConstructors()) {
                    int run = longestRun(k.getGenericParameterTypes());
                    if (run > MAX_RUN) {
                        offenders.add(k.toGenericString() + " (" + run + " in a row)");
                    }
                }
            }
        }
        assertThat(offenders).as("public constructors with a run of more than %d same-typed arguments", MAX_RUN)
                .isEmpty();
    }

    @Test
    void theRunIsCounted() throws Exception {
        // the analysis itself, on made-up signatures
        assertThat(longestRun(Shapes.class.getMethod("three", String.class, String.class, String.class)
                .getGenericParameterTypes())).isEqualTo(3);
        assertThat(longestRun(Shapes.class.getMethod("interleaved", String.class, int.class, String.class,
                String.class).getGenericParameterTypes())).isEqualTo(2);
        Method lists = Shapes.class.getMethod("lists", List.class, List.class, List.class);
        assertThat(longestRun(lists.getGenericParameterTypes())).isEqualTo(1);
        assertThat(longestRun(new Type[0])).isZero();
    }

    static int longestRun(Type[] types) {
        int best = 0;
        int run = 0;
        for (int i = 0; i < types.length; i++) {
            run = i > 0 && types[i].equals(types[i - 1]) ? run + 1 : 1;
            best = Math.max(best, run);
        }
        return best;
    }

    private static boolean isPublicApi(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getEnclosingClass()) {
            if (!Modifier.isPublic(k.getModifiers())) {
                return false;
            }
        }
        return !c.isAnonymousClass() && !c.isSynthetic();
    }

    /** The packages of this module's compiled classes, without the {@code internal} ones. */
    static Set<String> apiPackages() {
        Path classes = Path.of("target", "classes");
        Set<String> out = new TreeSet<>();
        try (Stream<Path> files = Files.walk(classes)) {
            files.filter(f -> f.toString().endsWith(".class")).map(f -> classes.relativize(f.getParent()).toString())
                    .map(d -> d.replace(File.separatorChar, '.')).filter(p -> !p.contains(".internal"))
                    .forEach(out::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** The binary names of the compiled classes of a package of this module. */
    static Set<String> classes(String pkg) {
        Path dir = Path.of("target", "classes").resolve(pkg.replace('.', '/'));
        Set<String> out = new TreeSet<>();
        try (Stream<Path> files = Files.list(dir)) {
            files.map(p -> p.getFileName().toString()).filter(f -> f.endsWith(".class"))
                    .filter(f -> !f.equals("package-info.class"))
                    .forEach(f -> out.add(pkg + "." + f.substring(0, f.length() - ".class".length())));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** Signatures for {@link #theRunIsCounted()}. */
    public interface Shapes {
        void three(String a, String b, String c);

        void interleaved(String a, int b, String c, String d);

        void lists(List<String> a, List<Integer> b, List<String> c);
    }
}
