package dev.toolbus.config;

import dev.toolbus.policy.PolicyConfig;
import java.util.Map;
import java.util.Set;

/** Reads the {@code security} section: dangerous tools and who may use them. */
final class SecuritySection {

    private SecuritySection() {
    }

    static PolicyConfig.Security read(ConfigLoader.Reader in, Map<String, Object> root) {
        Map<String, Object> s = in.section(root, "security", "",
                Set.of("dangerousTools", "allowDangerous", "dangerousRequiredPermission"));
        PolicyConfig.Security d = PolicyConfig.Security.DEFAULTS;
        return new PolicyConfig.Security(in.strings(s, "dangerousTools", "security", d.dangerousTools()),
                in.bool(s, "allowDangerous", "security", false),
                in.string(s, "dangerousRequiredPermission", "security", "admin"));
    }
}
