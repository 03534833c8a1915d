package dev.toolbus.config;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/** Reads the {@code gateway} section. */
final class GatewaySection {

    private GatewaySection() {
    }

    static Config.Gateway read(ConfigLoader.Reader in, Map<String, Object> root) {
        Map<String, Object> g = in.section(root, "gateway", "",
                Set.of("enabled", "host", "port", "token", "maxRequestBytes", "maxOutboundEvents"));
        Config.Gateway d = Config.Gateway.DEFAULTS;
        Config.Gateway gw = new Config.Gateway(in.bool(g, "enabled", "gateway", true),
                ConfigLoader.Reader.nonBlank(in.string(g, "host", "gateway", d.host()), d.host()),
                (int) in.integer(g, "port", "gateway", d.port(), 0, 65_535),
                Objects.requireNonNullElse(in.string(g, "token", "gateway", ""), "").strip(),
                in.integer(g, "maxRequestBytes", "gateway", d.maxRequestBytes(), 1024, 64L * 1024 * 1024),
                (int) in.integer(g, "maxOutboundEvents", "gateway", d.maxOutboundEvents(), 16, 1_000_000));
        if (gw.enabled() && !gw.loopback() && gw.token().isEmpty()) {
            in.warn("gateway.token", "is empty but gateway.host " + gw.host()
                    + " is not loopback; the gateway refuses to start without a token");
        }
        return gw;
    }
}
