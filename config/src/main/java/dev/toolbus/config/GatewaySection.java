package dev.toolbus.config;

import dev.toolbus.policy.PermissionLevel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/** Reads the {@code gateway} section, its scoped {@code tokens} included. */
final class GatewaySection {

    private GatewaySection() {
    }

    static GatewayConfig read(ConfigLoader.Reader in, Map<String, Object> root) {
        Map<String, Object> g = in.section(root, "gateway", "",
                Set.of("enabled", "host", "port", "token", "maxRequestBytes", "maxOutboundEvents", "tokens",
                        "onExcess", "maxConnections", "headerTimeout", "bodyTimeout", "maxAnswerBytes",
                        "maxAnswerBytesTotal"));
        GatewayConfig d = GatewayConfig.DEFAULTS;
        String onExcess = in.string(g, "onExcess", "gateway", "refuse");
        String rule = onExcess == null ? "refuse" : onExcess.strip().toLowerCase(Locale.ROOT);
        if (!GatewayConfig.ON_EXCESS.contains(rule)) {
            in.warn("gateway.onExcess", "'" + onExcess + "' is not refuse or clamp; using refuse");
            rule = "refuse";
        }
        GatewayConfig gw = GatewayConfig.builder()
                .enabled(in.bool(g, "enabled", "gateway", true))
                .host(ConfigLoader.Reader.nonBlank(in.string(g, "host", "gateway", d.host()), d.host()))
                .port((int) in.integer(g, "port", "gateway", d.port(), 0, 65_535))
                .token(Objects.requireNonNullElse(in.string(g, "token", "gateway", ""), "").strip())
                .maxRequestBytes(in.integer(g, "maxRequestBytes", "gateway", d.maxRequestBytes(),
                        GatewayConfig.MIN_REQUEST_BYTES, GatewayConfig.MAX_REQUEST_BYTES))
                .maxOutboundEvents((int) in.integer(g, "maxOutboundEvents", "gateway", d.maxOutboundEvents(),
                        GatewayConfig.MIN_OUTBOUND_EVENTS, GatewayConfig.MAX_OUTBOUND_EVENTS))
                .tokens(tokens(in, g))
                .onExcess(rule)
                .maxConnections((int) in.integer(g, "maxConnections", "gateway", d.maxConnections(), 1,
                        GatewayConfig.MAX_CONNECTIONS))
                .headerTimeoutMs(in.integer(g, "headerTimeout", "gateway", d.headerTimeoutMs(),
                        GatewayConfig.MIN_TIMEOUT_MS, GatewayConfig.MAX_TIMEOUT_MS))
                .bodyTimeoutMs(in.integer(g, "bodyTimeout", "gateway", d.bodyTimeoutMs(),
                        GatewayConfig.MIN_TIMEOUT_MS, GatewayConfig.MAX_TIMEOUT_MS))
                .maxAnswerBytes(in.integer(g, "maxAnswerBytes", "gateway", d.maxAnswerBytes(),
                        GatewayConfig.MIN_ANSWER_BYTES, GatewayConfig.MAX_ANSWER_BYTES))
                .maxAnswerBytesTotal(in.integer(g, "maxAnswerBytesTotal", "gateway", d.maxAnswerBytesTotal(),
                        GatewayConfig.MIN_ANSWER_BYTES, GatewayConfig.MAX_ANSWER_BYTES))
                .build();
        if (gw.enabled() && !gw.loopback() && !gw.hasTokens()) {
            in.warn("gateway.token", "is empty but gateway.host " + gw.host()
                    + " is not loopback; the gateway refuses to start without a token");
        }
        return gw;
    }

    /**
     * {@code gateway.tokens}: each entry a mapping. An entry without a token (say, an unset
     * {@code ${ENV}}) is dropped, a bad {@code maxPermission} reads as {@code member} (the least), an
     * {@code approval} other than {@code override} as no override, a repeated token keeps its first
     * scope; each with a warning.
     */
    @SuppressWarnings("unchecked")
    private static List<GatewayToken> tokens(ConfigLoader.Reader in, Map<String, Object> g) {
        if (!g.containsKey("tokens")) {
            return List.of();
        }
        Object v = g.get("tokens");
        if (!(v instanceof List<?> list)) {
            in.warn("gateway.tokens", (v == null ? "is empty" : "must be a list, got " + ConfigLoader.Reader.describe(v))
                    + "; no scoped tokens");
            return List.of();
        }
        List<GatewayToken> out = new ArrayList<>();
        Set<String> seen = new java.util.HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            String p = "gateway.tokens[" + i + "]";
            if (!(list.get(i) instanceof Map)) {
                in.warn(p, "must be a mapping, got " + ConfigLoader.Reader.describe(list.get(i)) + "; skipped");
                continue;
            }
            Map<String, Object> t = in.keys((Map<String, Object>) list.get(i), p,
                    Set.of("name", "token", "maxPermission", "agents", "channels", "streams", "approval"));
            String name = ConfigLoader.Reader.nonBlank(in.string(t, "name", p, null), "tokens[" + i + "]");
            String secret = Objects.requireNonNullElse(in.string(t, "token", p, ""), "").strip();
            if (secret.isEmpty()) {
                in.warn(p, "has no token (an unset ${ENV}?); skipped");
                continue;
            }
            if (!seen.add(secret)) {
                in.warn(p, "repeats the token of an earlier entry; skipped");
                continue;
            }
            String level = in.string(t, "maxPermission", p, "member");
            PermissionLevel max = PermissionLevel.parseRequired(level);
            if (max == null) {
                in.warn(p + ".maxPermission", "'" + level + "' is not member, admin, owner or master; using member");
                max = PermissionLevel.MEMBER;
            }
            String approval = Objects.requireNonNullElse(in.string(t, "approval", p, ""), "").strip();
            boolean override = approval.equalsIgnoreCase("override");
            if (!override && !approval.isEmpty()) {
                in.warn(p + ".approval", "'" + approval + "' is not override; its turns may not loosen approval");
            }
            out.add(GatewayToken.builder(name).token(secret).maxPermission(max)
                    .agents(in.strings(t, "agents", p, List.of())).channels(in.strings(t, "channels", p, List.of()))
                    .streams(in.strings(t, "streams", p, List.of())).approvalOverride(override).build());
        }
        return out;
    }
}
