package dev.toolbus.plugins.stdio;

/**
 * What a plugin folder holds, and so which program runs it.
 *
 * <ul>
 *   <li>{@link #STDIO}: a {@code plugin.json} naming its own {@code command} (toolbus's protocol);</li>
 *   <li>{@link #OPENCLAW}: an OpenClaw plugin ({@code openclaw.plugin.json}, or a {@code package.json}
 *       with an {@code openclaw} key), run by the Node host {@code tool-sources/hosts/openclaw};</li>
 *   <li>{@link #MAIBOT}: a MaiBot plugin ({@code plugin.py} defining {@code create_plugin()}), run by the
 *       Python host {@code tool-sources/hosts/maibot};</li>
 *   <li>{@link #CHATAI}: a ChatAI custom-tools folder ({@code *.js} / {@code *.mjs} tool modules), run by
 *       the Node host {@code tool-sources/hosts/chatai}.</li>
 * </ul>
 */
public enum PluginKind {
    STDIO("stdio"),
    OPENCLAW("openclaw"),
    MAIBOT("maibot"),
    CHATAI("chatai");

    private final String runtime;

    PluginKind(String runtime) {
        this.runtime = runtime;
    }

    /** The name {@code plugin.json} uses for this kind in {@code "runtime"}. */
    public String runtime() {
        return runtime;
    }

    /**
     * The kind named by a {@code plugin.json} {@code "runtime"} value.
     *
     * @throws IllegalArgumentException for an unknown name
     */
    public static PluginKind ofRuntime(String name) {
        for (PluginKind k : values()) {
            if (k.runtime.equals(name)) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown runtime '" + name + "' (expected stdio, openclaw, maibot or chatai)");
    }
}
