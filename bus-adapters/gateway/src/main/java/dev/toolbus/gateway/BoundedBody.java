package dev.toolbus.gateway;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
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

    /** Bytes taken at once for a declared length; more only as they arrive (a length may lie). */
    static final int PRESIZE_LIMIT = 16 * 1024;

    private byte[] bytes = new byte[0];
    private int size;
    private final int max;
    private final int expected;

    /** {@code expected}: the declared length (within the bound), so that a small whole body is copied once. */
    private BoundedBody(int max, int expected) {
        this.max = max;
        this.expected = expected;
    }

    /**
     * The body of {@code request}, at most {@code max} bytes. A declared {@code Content-Length} above
     * the bound fails before anything is read; a chunked body fails as soon as it passes the bound; a
     * body that has not arrived in full within {@code timeout} fails with {@link TooSlow}.
     */
    static Mono<byte[]> read(HttpServerRequest request, int max, Duration timeout) {
        long length = declaredLength(request.requestHeaders().get(HttpHeaderNames.CONTENT_LENGTH));
        if (length > max) {
            return Mono.error(new TooLarge("request body of " + length + " bytes is above the " + max
                    + "-byte limit"));
        }
        int expected = (int) Math.max(0, length);
        Mono<byte[]> tooSlow = Mono.error(() -> new TooSlow("the request body did not arrive within "
                + timeout.toMillis() + " ms"));
        Mono<byte[]> body = request.receive()
                .reduceWith(() -> new BoundedBody(max, expected), BoundedBody::append)
                .map(BoundedBody::toBytes)
                .defaultIfEmpty(new byte[0]);
        EventLoop[] loop = new EventLoop[1];
        request.withConnection(c -> loop[0] = c.channel().eventLoop());
        // the deadline on the connection's own loop: set and cancelled there without a lock or a wake-up
        // of another thread (Mono.timeout(Duration) would use Schedulers.parallel() for every request)
        return loop[0] == null ? body.timeout(timeout, tooSlow) : body.timeout(after(loop[0], timeout), tooSlow);
    }

    /** The declared {@code Content-Length}; -1 when absent or not a number. */
    private static long declaredLength(String declared) {
        if (declared == null) {
            return -1;
        }
        try {
            return Long.parseLong(declared.strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Emits once {@code delay} has passed, timed by {@code loop}; cancelling it cancels the timer. */
    static Mono<Long> after(EventLoop loop, Duration delay) {
        return Mono.create(sink -> {
            ScheduledFuture<?> timer = loop.schedule(() -> sink.success(0L), delay.toNanos(), TimeUnit.NANOSECONDS);
            sink.onCancel(() -> timer.cancel(false));
        });
    }

    private BoundedBody append(ByteBuf buf) {
        int n = buf.readableBytes();
        if ((long) size + n > max) {
            throw new TooLarge("request body of more than " + max + " bytes is above the " + max + "-byte limit");
        }
        if (size + n > bytes.length) {
            int first = size == 0 && expected >= n ? Math.min(expected, PRESIZE_LIMIT) : 1024;
            bytes = Arrays.copyOf(bytes, Math.min(max, Math.max(size + n, Math.max(first, bytes.length * 2))));
        }
        buf.getBytes(buf.readerIndex(), bytes, size, n);
        size += n;
        return this;
    }

    private byte[] toBytes() {
        return size == bytes.length ? bytes : Arrays.copyOf(bytes, size);
    }
}
