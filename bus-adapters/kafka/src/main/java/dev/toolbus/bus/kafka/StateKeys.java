package dev.toolbus.bus.kafka;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.apache.kafka.common.utils.Utils;

/**
 * Keys of the state topic and the partition a stream's records go to. A record's key is its facet's
 * letter, a colon and a hash of the SPI key (64 hex digits over the length-prefixed principal, stream
 * and ids, so no two keys collide whatever characters the ids hold); a request's is its derived id.
 * Every record of a stream goes to the partition of the stream's calls records: Kafka's default
 * partitioner over the {@code stream_id} key (murmur2), so the instance that owns a calls partition
 * owns the state of its streams.
 */
final class StateKeys {

    /** The owner marker (one per partition; the newest is the partition's owner). */
    static final String OWNER = "o:";
    static final char JOURNAL = 'j';
    static final char REQUEST = 'r';
    static final char HELD = 'h';
    static final char GRANT = 'g';
    static final char CUT = 'c';

    private StateKeys() {
    }

    /** The partition of a stream's records: the default partitioner's for the key {@code streamId}. */
    static int partition(String streamId, int partitions) {
        return Utils.toPositive(Utils.murmur2(streamId.getBytes(StandardCharsets.UTF_8))) % partitions;
    }

    static String key(char facet, String id) {
        return facet + ":" + id;
    }

    /** The facet letter of a key, or 0 for one this version does not know. */
    static char facet(String key) {
        return key != null && key.length() > 2 && key.charAt(1) == ':' ? key.charAt(0) : 0;
    }

    /** 64 hex digits of SHA-256 over the length-prefixed parts. */
    static String hash(String... parts) {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        for (String p : parts) {
            byte[] b = p.getBytes(StandardCharsets.UTF_8);
            md.update(new byte[] {(byte) (b.length >>> 24), (byte) (b.length >>> 16), (byte) (b.length >>> 8), (byte) b.length});
            md.update(b);
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
