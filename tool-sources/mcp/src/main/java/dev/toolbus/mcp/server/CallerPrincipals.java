package dev.toolbus.mcp.server;

import dev.toolbus.spi.Principal;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Who each MCP client is to the executor: the principal its calls run as and its answers and cancels
 * are sent as, so the turn state (cut results, approvals, questions, grants) of one token's calls is
 * never another token's. An HTTP endpoint with tokens records the principal of each token's scope
 * under the client's key ({@link ClientKeys}; one entry per configured token and endpoint); stdio is
 * {@link Principal#stdio()}, an endpoint without tokens {@link Principal#local()}. A key with no
 * record (the bound was reached) gets a token principal of its own, never a shared one.
 */
final class CallerPrincipals {

    /** The most keys recorded: far more than anyone configures tokens. */
    static final int MAX_KEYS = 10_000;

    private final ConcurrentMap<String, Principal> known = new ConcurrentHashMap<>();

    /** Records the principal of an authenticated client's key. */
    void record(String clientKey, Principal principal) {
        if (known.size() < MAX_KEYS || known.containsKey(clientKey)) {
            known.put(clientKey, principal);
        }
    }

    /** The executor's principal of a client key. */
    Principal of(String clientKey) {
        Principal p = known.get(clientKey);
        if (p != null) {
            return p;
        }
        if (clientKey == null || ClientKeys.LOCAL.equals(clientKey)) {
            return Principal.local();
        }
        if (StdioServerTransport.PRINCIPAL.equals(clientKey)) {
            return Principal.stdio();
        }
        return Principal.token(clientKey).maxPermission("member").build();
    }
}
