package dev.toolbus.gateway;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A WebSocket client on a plain socket, for what library clients hide: reading nothing at all,
 * fragments, raw close codes, and server pings.
 */
final class RawWebSocket implements AutoCloseable {

    static final int TEXT = 0x1;
    static final int CONTINUATION = 0x0;
    static final int CLOSE = 0x8;
    static final int PING = 0x9;
    static final int PONG = 0xA;

    /** One received frame. */
    record Frame(int opcode, byte[] payload) {
        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }

        int closeCode() {
            return payload.length >= 2 ? ((payload[0] & 0xff) << 8) | (payload[1] & 0xff) : -1;
        }
    }

    final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    final String handshakeStatus;

    /**
     * Connects and upgrades.
     *
     * @param receiveBuffer SO_RCVBUF in bytes, or 0 for the default
     */
    RawWebSocket(int port, String token, int receiveBuffer) throws IOException {
        socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        socket.setSoTimeout(20_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
        byte[] key = new byte[16];
        ThreadLocalRandom.current().nextBytes(key);
        String request = "GET /v1/ws HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: " + Base64.getEncoder().encodeToString(key) + "\r\n"
                + "Sec-WebSocket-Version: 13\r\n"
                + (token == null ? "" : "Authorization: Bearer " + token + "\r\n") + "\r\n";
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        handshakeStatus = readHead(in).lines().findFirst().orElse("");
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed during the handshake");
            }
            head.write(b);
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.US_ASCII);
    }

    boolean upgraded() {
        return handshakeStatus.contains(" 101 ");
    }

    void sendText(String text) throws IOException {
        sendFrame(TEXT, true, text.getBytes(StandardCharsets.UTF_8));
    }

    /** Sends one masked frame. */
    synchronized void sendFrame(int opcode, boolean fin, byte[] payload) throws IOException {
        ByteArrayOutputStream f = new ByteArrayOutputStream(payload.length + 14);
        f.write((fin ? 0x80 : 0) | opcode);
        if (payload.length < 126) {
            f.write(0x80 | payload.length);
        } else if (payload.length < 65536) {
            f.write(0x80 | 126);
            f.write(payload.length >>> 8);
            f.write(payload.length);
        } else {
            f.write(0x80 | 127);
            for (int i = 7; i >= 0; i--) {
                f.write((int) ((long) payload.length >>> (8 * i)));
            }
        }
        byte[] mask = new byte[4];
        ThreadLocalRandom.current().nextBytes(mask);
        f.write(mask, 0, 4);
        byte[] masked = new byte[payload.length];
        for (int i = 0; i < payload.length; i++) {
            masked[i] = (byte) (payload[i] ^ mask[i & 3]);
        }
        f.write(masked, 0, masked.length);
        out.write(f.toByteArray());
        out.flush();
    }

    /** Reads the next frame (server frames are not masked). */
    Frame readFrame() throws IOException {
        int b0 = in.readUnsignedByte();
        int b1 = in.readUnsignedByte();
        long len = b1 & 0x7f;
        if (len == 126) {
            len = in.readUnsignedShort();
        } else if (len == 127) {
            len = in.readLong();
        }
        byte[] payload = new byte[(int) len];
        in.readFully(payload);
        return new Frame(b0 & 0x0f, payload);
    }

    /** Reads frames until a close frame, answering nothing; returns it. */
    Frame readUntilClose() throws IOException {
        while (true) {
            Frame f = readFrame();
            if (f.opcode() == CLOSE) {
                return f;
            }
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
