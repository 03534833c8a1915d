package dev.toolbus.gateway;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.time.Duration;
import java.util.Arrays;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;

/** Reads a request body into memory, never more than a bound: a larger body fails early. */
final class BoundedBody {

    /** The body is above the bound. Stackless: it is an expected outcome. */
    static final class TooLarge extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TooLarge(String message) {
            super(message, null, false, false);
        }
    }

    /** The body did not arrive in time. Stackless: it is an expected outcome. */
    static final class TooSlow extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TooSlow(String message) {
            super(message, null, false, false);
        }
    }

    private byte[] bytes = new byte[0];
    private int size;
    private final int max;

    private BoundedBody(int max) {
        this.max = max;
    }

    /**
     * The body of {@code request}, at most {@code max} bytes. A declared {@code Content-Length} above
     * the bound fails before anything is read; a chunked body fails as soon as it passes the bound; a
     * body that has not arrived in full within {@code timeout} fails with {@link TooSlow}.
     */
    static Mono<byte[]> read(HttpServerRequest request, int max, Duration timeout) {
        String declared = request.requestHeaders().get(HttpHeaderNames.CONTENT_LENGTH);
        if (declared != null) {
            long length;
            try {
                length = Long.parseLong(declared.strip());
            } catch (NumberFormatException e) {
                length = -1;
            }
            if (length > max) {
                return Mono.error(new TooLarge("request body of " + length + " bytes is above the " + max
                        + "-byte limit"));
            }
        }
        return request.receive()
                .reduceWith(() -> new BoundedBody(max), BoundedBody::append)
                .map(BoundedBody::toBytes)
                .defaultIfEmpty(new byte[0])
                .timeout(timeout, Mono.error(() -> new TooSlow("the request body did not arrive within "
                        + timeout.toMillis() + " ms")));
    }

    private BoundedBody append(ByteBuf buf) {
        int n = buf.readableBytes();
        if ((long) size + n > max) {
            throw new TooLarge("request body of more than " + max + " bytes is above the " + max + "-byte limit");
        }
        if (size + n > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.min(max, Math.max(size + n, Math.max(1024, bytes.length * 2))));
        }
        buf.getBytes(buf.readerIndex(), bytes, size, n);
        size += n;
        return this;
    }

    private byte[] toBytes() {
        return size == bytes.length ? bytes : Arrays.copyOf(bytes, size);
    }
}
