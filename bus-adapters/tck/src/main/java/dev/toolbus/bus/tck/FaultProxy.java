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
 * stalled; connections stay open) or {@link #slow(Duration) slow} them (a delay before each forwarded
 * chunk). Plain blocking sockets, two threads per connection; test use only.
 */
public final class FaultProxy implements AutoCloseable {

    private final InetSocketAddress target;
    private final ServerSocket server;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Object gate = new Object();
    private final AtomicLong cuts = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();
    private volatile boolean stalled;
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

    /** While on, no byte is forwarded in either direction; connections stay open. */
    public void stall(boolean on) {
        synchronized (gate) {
            stalled = on;
            gate.notifyAll();
        }
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
                accepted.incrementAndGet();
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                open.add(client);
                open.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    waitWhileStalled();
                    long d = delayNanos;
                    if (d > 0) {
                        Thread.sleep(d / 1_000_000, (int) (d % 1_000_000));
                    }
                    out.write(buf, 0, n);
                    out.flush();
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

    private void waitWhileStalled() throws InterruptedException {
        synchronized (gate) {
            while (stalled && !closed) {
                gate.wait(100);
            }
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
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        cut();
    }
}
