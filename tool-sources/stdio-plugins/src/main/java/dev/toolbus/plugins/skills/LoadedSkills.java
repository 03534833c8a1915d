package dev.toolbus.plugins.skills;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Per stream, the skills {@code load_skill} loaded there, oldest first, so a {@code list_skills}
 * answer can hand them back for re-injection after the bot core compressed its context. Bounded: at
 * most {@link #PER_STREAM} names per stream (the oldest go first), at most {@link #MAX_BYTES} of
 * stream ids and names in all (about {@value #ENTRY_OVERHEAD} bytes of overhead counted per entry),
 * and a stream's entry expires {@code ttl} after it was last used.
 */
final class LoadedSkills {

    static final int PER_STREAM = 32;
    static final long MAX_BYTES = 4L * 1024 * 1024;
    static final int ENTRY_OVERHEAD = 64;
    static final Duration DEFAULT_TTL = Duration.ofHours(24);

    private final Cache<String, List<String>> streams;

    LoadedSkills(Duration ttl, Ticker ticker) {
        this.streams = Caffeine.newBuilder().ticker(ticker).expireAfterAccess(ttl).maximumWeight(MAX_BYTES)
                .<String, List<String>>weigher((k, v) -> weight(k, v)).build();
    }

    private static int weight(String stream, List<String> names) {
        int w = ENTRY_OVERHEAD + 2 * stream.length();
        for (String n : names) {
            w += 16 + 2 * n.length();
        }
        return w;
    }

    /** Remembers that the skill was loaded on the stream (moved to the end when it was already there). */
    void remember(String stream, String skill) {
        if (stream == null || skill == null) {
            return;
        }
        streams.asMap().compute(stream, (k, old) -> {
            List<String> next = new ArrayList<>(old == null ? List.of() : old);
            next.remove(skill);
            next.add(skill);
            while (next.size() > PER_STREAM) {
                next.remove(0);
            }
            return List.copyOf(next);
        });
    }

    /** The skills loaded on the stream, oldest first. */
    List<String> of(String stream) {
        List<String> l = streams.getIfPresent(stream);
        return l == null ? List.of() : l;
    }

    /** How many streams are remembered (tests). */
    long size() {
        streams.cleanUp();
        return streams.estimatedSize();
    }
}
