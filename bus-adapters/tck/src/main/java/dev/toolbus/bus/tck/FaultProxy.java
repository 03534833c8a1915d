package dev.toolbus.bus.tck;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on 127.0.0.1 for fault injection in tests: forwards every connection to a target and
 * can {@link #cut()} all open connections, {@link #stall(boolean) stall} them (no byte moves while
 * stalled; connections stay open), {@link #stallReplies(boolean) stall only the target's replies} (the
 * target gets and acts on every request; the client hears nothing back) or {@link #slow(Duration) slow}
 * them (a delay before each forwarded chunk). Plain blocking sockets, two threads per connection; test use only.
 */
public final class FaultProxy implements AutoCloseable {

    private final InetSocketAddress target;
    private final ServerSocket server;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Object gate = new Object();
    private final AtomicLong cuts = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();
    private volatile boolean stalled;
    /** Chunks past the stall check and not yet written; guarded by {@link #gate}. */
    private int forwarding;
    private volatile boolean repliesStalled;
    private volatile RequestTap tap;
    private volatile long delayNanos;
    private volatile boolean closed;

    private FaultProxy(InetSocketAddress target, int listenPort) throws IOException {
        this.target = target;
        this.server = new ServerSocket();
        server.setReuseAddress(true); // a fixed port is taken again by the next test right after close
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), listenPort), 50);
        Thread acceptor = new Thread(this::accept, "fault-proxy-accept-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A proxy to host:port, listening on a free loopback port. */
    public static FaultProxy start(String host, int port) throws IOException {
        return new FaultProxy(new InetSocketAddress(host, port), 0);
    }

    /**
     * A proxy to host:port listening on the given loopback port: for a broker that advertises that
     * port, so that a client's every connection (not only the bootstrap one) goes through the proxy.
     */
    public static FaultProxy start(String host, int port, int listenPort) throws IOException {
        return new FaultProxy(new InetSocketAddress(host, port), listenPort);
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Closes every open connection (both sides); new connections are accepted as before. */
    public void cut() {
        cuts.incrementAndGet();
        for (Socket s : open) {
            closeQuietly(s);
        }
    }

    /**
     * While on, no byte is forwarded in either direction; connections stay open. Turned on, it returns
     * once the chunks already past the stall check are written (at most 1 s), so nothing the proxy
     * forwards reaches the other side after it returned.
     */
    public void stall(boolean on) {
        synchronized (gate) {
            stalled = on;
            gate.notifyAll();
            long end = System.nanoTime() + 1_000_000_000L;
            try {
                while (on && forwarding > 0 && end - System.nanoTime() > 0) {
                    gate.wait(Math.max(1, (end - System.nanoTime()) / 1_000_000));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * While on, no byte is forwarded from the target to the client; requests still reach the target, which
     * acts on them (a commit the client times out on is made all the same).
     */
    public void stallReplies(boolean on) {
        synchronized (gate) {
            repliesStalled = on;
            gate.notifyAll();
        }
    }

    /** Sees what clients send, chunk by chunk as read, before it is forwarded (for a trigger that reads a protocol). */
    @FunctionalInterface
    public interface RequestTap {
        /**
         * @param connection the connection's number, from 1 in the order accepted
         * @param chunk the bytes read, {@code length} of them from 0 (do not keep the array)
         */
        void sent(long connection, byte[] chunk, int length);
    }

    /** Shows every later chunk a client sends to the tap first (null: none). */
    public void tap(RequestTap tap) {
        this.tap = tap;
    }

    /** A delay before each forwarded chunk ({@link Duration#ZERO}: none). */
    public void slow(Duration perChunk) {
        delayNanos = perChunk.toNanos();
    }

    /** Connections accepted so far (a client that reconnected after a cut counts again). */
    public long accepted() {
        return accepted.get();
    }

    /** Connections open now (each proxied connection counts once). */
    public int openConnections() {
        return open.size() / 2;
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket();
                try {
                    upstream.connect(target, 5_000);
                } catch (IOException e) {
                    closeQuietly(client);
                    closeQuietly(upstream);
                    continue;
                }
                long connection = accepted.incrementAndGet();
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                open.add(client);
                open.add(upstream);
                pump(client, upstream, connection);
                pump(upstream, client, 0);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    /** Forwards what {@code from} sends; {@code connection} is 0 for a target's replies. */
    private void pump(Socket from, Socket to, long connection) {
        boolean replies = connection == 0;
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    RequestTap seen = tap;
                    if (!replies && seen != null) {
                        seen.sent(connection, buf, n);
                    }
                    waitWhileStalled(replies);
                    try {
                        long d = delayNanos;
                        if (d > 0) {
                            Thread.sleep(d / 1_000_000, (int) (d % 1_000_000));
                        }
                        out.write(buf, 0, n);
                        out.flush();
                    } finally {
                        synchronized (gate) {
                            forwarding--;
                            gate.notifyAll();
                        }
                    }
                }
            } catch (IOException | InterruptedException e) {
                // cut or closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "fault-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private void waitWhileStalled(boolean replies) throws InterruptedException {
        synchronized (gate) {
            while ((stalled || replies && repliesStalled) && !closed) {
                gate.wait(100);
            }
            forwarding++; // the caller writes the chunk, then counts it down
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        stall(false);
        stallReplies(false);
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        cut();
    }
}
