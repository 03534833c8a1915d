package dev.toolbus.gateway;

import java.util.HashMap;
import java.util.Map;

/**
 * The bytes of events held for non-streaming {@code POST /v1/turns} answers (issue 21 M5: a plugin
 * flooding {@code send_message} into such a turn grew one answer to 742 MB and the server ran out of
 * memory). Bounded per principal (the token's name) and in all; an answer that would pass a bound ends
 * its turn with an error instead.
 */
final class AnswerBudget {

    private final long perPrincipal;
    private final long total;
    private long held;
    private final Map<String, Long> byPrincipal = new HashMap<>();

    AnswerBudget(long perPrincipal, long total) {
        this.perPrincipal = perPrincipal;
        this.total = total;
    }

    /** Takes {@code bytes} for an answer of {@code principal}; {@code null} when taken, else the bound that would be passed. */
    synchronized String take(String principal, long bytes) {
        long mine = byPrincipal.getOrDefault(principal, 0L);
        if (mine + bytes > perPrincipal) {
            return "the answers being gathered for token '" + principal + "' would pass " + perPrincipal
                    + " bytes (gateway.maxAnswerBytes)";
        }
        if (held + bytes > total) {
            return "the answers being gathered for all tokens would pass " + total
                    + " bytes (gateway.maxAnswerBytesTotal)";
        }
        byPrincipal.put(principal, mine + bytes);
        held += bytes;
        return null;
    }

    synchronized void give(String principal, long bytes) {
        if (bytes <= 0) {
            return;
        }
        held = Math.max(0, held - bytes);
        byPrincipal.computeIfPresent(principal, (k, v) -> v - bytes <= 0 ? null : v - bytes);
    }

    /** Bytes held now, in all (the gauge {@code toolbus.gateway.answers.pending}). */
    synchronized long held() {
        return held;
    }
}
