package dev.toolbus.mcp.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.mcp.internal.Wire;

/**
 * What a client declared it can do: form and URL elicitation, sampling, roots, and the Tasks
 * extension. A modern client declares them on every request; a legacy one in {@code initialize}.
 */
record ClientCaps(boolean elicitForm, boolean elicitUrl, boolean sampling, boolean roots, boolean tasks) {

    static final ClientCaps NONE = new ClientCaps(false, false, false, false, false);

    /** Reads a {@code ClientCapabilities} object ({@code elicitation: {}} alone means form only). */
    static ClientCaps of(JsonNode caps) {
        if (caps == null || !caps.isObject()) {
            return NONE;
        }
        JsonNode e = caps.get("elicitation");
        boolean elicit = e != null && e.isObject();
        boolean form = elicit && (e.isEmpty() || e.has("form"));
        boolean url = elicit && e.has("url");
        JsonNode ext = caps.path("extensions");
        return new ClientCaps(form, url, caps.path("sampling").isObject(), caps.path("roots").isObject(),
                ext.isObject() && ext.path(Wire.TASKS_EXTENSION).isObject());
    }

    /** These capabilities and the Tasks extension. */
    ClientCaps withTasks() {
        return new ClientCaps(elicitForm, elicitUrl, sampling, roots, true);
    }

    /** The {@code ClientCapabilities} object naming one capability, for a -32021 error. */
    static ObjectNode required(String capability) {
        ObjectNode o = Wire.object();
        switch (capability) {
            case "elicitation.url" -> o.putObject("elicitation").putObject("url");
            case "elicitation" -> o.putObject("elicitation").putObject("form");
            case "tasks" -> o.putObject("extensions").putObject(Wire.TASKS_EXTENSION);
            default -> o.putObject(capability);
        }
        return o;
    }
}
