package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The gateway's high-severity bounds against a real {@code serve} with a 256 MiB heap: a ping flood from
 * a client that never reads, a flood of idle and slowloris connections, and slow bodies after a 401;
 * the server keeps answering {@code /healthz} and still stops on SIGTERM.
 */
class GatewayHardeningIT {

    static final Map<String, String> SMALL_HEAP = Map.of("JAVA_TOOL_OPTIONS", "-Xmx256m");
    static final String TOKEN = "hardening-token";
    static final HttpClient JDK = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    static RunningServer serve(String name) throws IOException {
        // the token comes from TOOLBUS_TOKEN only: serve --gateway must use it
        return RunningServer.start(name, TOKEN, SMALL_HEAP, "--gateway", "127.0.0.1:0", "--sample-tools");
    }

    static int health(RunningServer s) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(s.url() + "/healthz")).timeout(Duration.ofSeconds(5)).build();
        return JDK.send(r, HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    static double metric(RunningServer s, String line) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(s.url() + "/metrics")).header("Authorization", "Bearer " + TOKEN)
                .timeout(Duration.ofSeconds(5)).build();
        String text = JDK.send(r, HttpResponse.BodyHandlers.ofString()).body();
        return text.lines().filter(l -> l.startsWith(line)).mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }

    static Socket connect(int port) throws IOException {
        Socket s = new Socket();
        s.setReceiveBufferSize(4096);
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        return s;
    }

    /** Reads until end of stream, a reset, or the timeout; whether the server closed. */
    static boolean closedByServer(Socket s, int timeoutMs) throws IOException {
        s.setSoTimeout(timeoutMs);
        InputStream in = s.getInputStream();
        try {
            byte[] buf = new byte[4096];
            while (in.read(buf) >= 0) {
                // drain
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    @Test
    void aPingFloodFromAClientThatNeverReadsIsCutOff_andSigtermStillStopsTheServer() throws Exception {
        RunningServer s = serve("hardening-ping-flood");
        try {
            Socket ws = connect(s.port);
            OutputStream out = ws.getOutputStream();
            String key = Base64.getEncoder().encodeToString("0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
            out.write(("GET /v1/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer " + TOKEN
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            ws.setSoTimeout(10_000);
            byte[] status = ws.getInputStream().readNBytes(12);
            assertThat(new String(status, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 101");
            // 2000 masked empty pings per write; every pong stays unread
            byte[] batch = new byte[6 * 2000];
            for (int i = 0; i < batch.length; i += 6) {
                batch[i] = (byte) 0x89;
                batch[i + 1] = (byte) 0x80;
            }
            AtomicLong pings = new AtomicLong();
            long end = System.nanoTime() + Duration.ofSeconds(40).toNanos();
            // a server that stops reading (the first release, out of memory) would block the write for good
            java.util.concurrent.atomic.AtomicBoolean gaveUp = new java.util.concurrent.atomic.AtomicBoolean();
            Thread watchdog = new Thread(() -> {
                try {
                    Thread.sleep(Duration.ofSeconds(50).toMillis());
                    gaveUp.set(true);
                    ws.close();
                } catch (InterruptedException | IOException e) {
                    // the flood ended first
                }
            }, "ping-flood-watchdog");
            watchdog.setDaemon(true);
            watchdog.start();
            boolean cutOff = false;
            try {
                while (System.nanoTime() < end) {
                    out.write(batch);
                    pings.addAndGet(2000);
                }
            } catch (IOException e) {
                cutOff = !gaveUp.get();
            }
            watchdog.interrupt();
            assertThat(cutOff).as("the server never cut off a client that sent %d pings and read nothing", pings.get())
                    .isTrue();
            assertThat(health(s)).isEqualTo(200);
            assertThat(metric(s, "toolbus_gateway_ws_closed_total{reason=\"slow_consumer\"")).isEqualTo(1);
            ws.close();

            long t0 = System.nanoTime();
            s.process.terminate().awaitExit(Duration.ofSeconds(60));
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(30));
            assertThat(s.process.stderr()).contains("all turns drained; stopped").doesNotContain("OutOfMemoryError");
            System.out.printf("ping flood: %d pings sent before the cut-off%n", pings.get());
        } finally {
            s.close();
        }
    }

    @Test
    void idleAndSlowlorisConnectionsCannotTakeEverySocket_andHealthKeepsAnswering() throws Exception {
        RunningServer s = serve("hardening-slowloris");
        List<Socket> flood = new ArrayList<>();
        try {
            for (int i = 0; i < 1500; i++) {
                Socket c = connect(s.port);
                if (i % 5 == 0) {
                    // a head that never ends
                    c.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
                }
                flood.add(c);
            }
            for (int i = 0; i < 5; i++) {
                assertThat(health(s)).isEqualTo(200);
            }
            assertThat(metric(s, "toolbus_gateway_connections ")).isLessThanOrEqualTo(1024);
            // every flood socket is closed by the server: evicted at once, or at the 10 s head deadline
            int closed = 0;
            for (Socket c : flood) {
                if (closedByServer(c, 100)) {
                    closed++;
                }
            }
            assertThat(closed).as("closed at once").isGreaterThanOrEqualTo(1500 - 1024);
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                int n = 0;
                for (Socket c : flood) {
                    if (closedByServer(c, 1)) {
                        n++;
                    }
                }
                assertThat(n).isEqualTo(flood.size());
            });

            // a 401 with a body that trickles in: answered, then closed
            try (Socket c = connect(s.port)) {
                c.getOutputStream().write(("POST /v1/turns HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n{")
                        .getBytes(StandardCharsets.US_ASCII));
                c.setSoTimeout(10_000);
                byte[] head = new byte[12];
                int n = c.getInputStream().readNBytes(head, 0, 12);
                assertThat(new String(head, 0, n, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 401");
                long t0 = System.nanoTime();
                boolean gone = false;
                while (!gone && System.nanoTime() - t0 < Duration.ofSeconds(10).toNanos()) {
                    try {
                        c.getOutputStream().write('x');
                        gone = closedByServer(c, 100);
                    } catch (IOException e) {
                        gone = true;
                    }
                }
                assertThat(gone).isTrue();
            }
            assertThat(health(s)).isEqualTo(200);
            assertThat(s.process.stderr()).doesNotContain("OutOfMemoryError");
        } finally {
            for (Socket c : flood) {
                c.close();
            }
            s.close();
        }
    }
}
