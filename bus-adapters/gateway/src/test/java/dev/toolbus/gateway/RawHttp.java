package dev.toolbus.gateway;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** HTTP/1.1 on a plain socket: for what clients hide (slow heads and bodies, raw bytes, the close). */
final class RawHttp implements AutoCloseable {

    /** A response head and its body (read by Content-Length). */
    record Response(int status, String head, String body) {
        boolean closes() {
            return head.toLowerCase(Locale.ROOT).contains("connection: close");
        }
    }

    final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RawHttp(int port) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        socket.setSoTimeout(15_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    RawHttp send(String text) throws IOException {
        return send(text.getBytes(StandardCharsets.UTF_8));
    }

    RawHttp send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    /** Reads one response. */
    Response read() throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed before a response head (" + head.size() + " bytes read)");
            }
            head.write(b);
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        String h = head.toString(StandardCharsets.ISO_8859_1);
        int status = Integer.parseInt(h.substring(9, 12));
        int length = 0;
        for (String line : h.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).strip());
            }
        }
        byte[] body = in.readNBytes(length);
        return new Response(status, h, new String(body, StandardCharsets.UTF_8));
    }

    /** Whether the server closed the connection: a read returns end of stream (or a reset) within the socket timeout. */
    boolean closedByServer() throws IOException {
        try {
            while (true) {
                int b = in.read();
                if (b < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    /** Sends {@code chunk} every {@code everyMs} until the server closes or {@code maxMs} passes; whether it closed. */
    boolean dribbleUntilClosed(String chunk, long everyMs, long maxMs) throws InterruptedException {
        long end = System.nanoTime() + maxMs * 1_000_000;
        while (System.nanoTime() < end) {
            try {
                send(chunk);
            } catch (IOException e) {
                return true;
            }
            try {
                socket.setSoTimeout((int) everyMs);
                if (in.read() < 0) {
                    return true;
                }
            } catch (SocketTimeoutException e) {
                // nothing yet: keep sending
            } catch (IOException e) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
