package dev.toolbus.executor.internal;

import dev.toolbus.spi.CutKey;
import dev.toolbus.spi.CutResults;
import dev.toolbus.spi.Principal;
import reactor.core.publisher.Mono;

/**
 * What {@code read_tool_result} reads: the cut results of the turn state, under the calling turn's
 * principal and stream only (another principal's cut on the same stream is not found).
 *
 * @param store the turn state's cut results
 * @param principal the calling turn's principal
 * @param streamId the calling turn's stream
 */
record CutReader(CutResults store, Principal principal, String streamId) {

    /** The kept text of a call, or empty. */
    Mono<CutResults.Cut> read(String toolCallId) {
        return Mono.defer(() -> store.get(CutKey.of(principal, streamId, toolCallId)));
    }
}
