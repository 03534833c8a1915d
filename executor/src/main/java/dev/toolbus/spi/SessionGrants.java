package dev.toolbus.spi;

import java.time.Duration;
import reactor.core.publisher.Mono;

/**
 * {@code approve_session} grants: while a grant lasts, its tool runs without asking for its principal,
 * stream and user ({@link GrantKey}). Shared by every instance that shares the state, so a grant made
 * on one is honoured by another.
 *
 * <p>Contract (the turn-state TCK checks it): a grant is found until its TTL passes (on the store's
 * clock), by exactly its key; granting again renews it; grants are bounded in count (beyond, the
 * oldest go first: a lost grant only asks again). Counted in {@code toolbus.state.records} and
 * {@code toolbus.state.bytes} with {@code facet=grants}.
 */
public interface SessionGrants {

    /** Grants the key for {@code ttl}; completes when recorded. */
    Mono<Void> grant(GrantKey key, Duration ttl);

    /** Whether a grant of this key lasts now. */
    Mono<Boolean> has(GrantKey key);
}
