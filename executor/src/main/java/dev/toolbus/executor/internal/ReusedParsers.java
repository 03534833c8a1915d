package dev.toolbus.executor.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.async.ByteArrayFeeder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Jackson's non-blocking parser reads one JSON document after another from the input fed to it, so
 * one parser serves many argument strings: no parser, context, buffer and symbol table are made per
 * call. Only the plain case takes this way: an object that starts at the first character, fits
 * {@value #MAX_CHARS} characters and holds no UTF-16 surrogate (the UTF-8 bytes would hide a lone one).
 * ASCII text is copied into the parser's own buffer (it is its UTF-8); other text is encoded anew.
 * It is fed the string up to its closing brace and must end the object exactly there. Anything else,
 * or anything this parser does not read to the end as exactly one object, answers
 * {@code null}, and {@link ArgumentParser} parses the string as usual (with its exact errors); a parser
 * that did not finish cleanly is dropped. A small pool (one cell per thread-id bucket) holds the
 * parsers; each reads at most {@value #DOCUMENTS_PER_PARSER} documents, so its symbol table and
 * buffers stay bounded whatever keys the models send.
 */
final class ReusedParsers {

    static final int MAX_CHARS = 4096;
    static final int DOCUMENTS_PER_PARSER = 256;

    private static final JsonFactory FACTORY = Json.mapper().getFactory();
    private static final AtomicReferenceArray<Reused> POOL = new AtomicReferenceArray<>(8);

    private ReusedParsers() {
    }

    /** The object {@code json} holds, read by a pooled parser; {@code null}: parse it the usual way. */
    static ObjectNode parseObject(String json, int fields) {
        int n = json.length();
        if (n < 2 || n > MAX_CHARS || json.charAt(0) != '{') {
            return null;
        }
        int cell = (int) Thread.currentThread().getId() & (POOL.length() - 1);
        Reused r = POOL.getAndSet(cell, null);
        boolean fed = false;
        boolean clean = false;
        try {
            if (r == null) {
                r = new Reused();
            }
            int trailing = trailingWhitespace(json);
            if (json.charAt(n - 1 - trailing) != '}') {
                return null;
            }
            byte[] bytes = r.ascii(json);
            boolean ascii = bytes != null;
            int len;
            if (ascii) {
                len = n;
            } else if (hasSurrogate(json)) {
                return null;
            } else {
                bytes = json.getBytes(StandardCharsets.UTF_8);
                len = bytes.length;
            }
            // fed up to the closing brace: the parser must end the object exactly there (it would take
            // anything after it as the start of a next document and wait for more)
            fed = true;
            r.feeder.feedInput(bytes, 0, len - trailing);
            JsonToken t = r.parser.nextToken();
            if (t != JsonToken.START_OBJECT) {
                return null;
            }
            // ASCII without a backslash holds no surrogate, not even as an escape: none to look for in its
            // keys and strings
            JsonNode v = ArgumentParser.read(r.parser, t, fields, !ascii || r.escaped);
            if (!r.feeder.needMoreInput()) {
                // the object ended before the closing brace fed last
                return null;
            }
            clean = true;
            return (ObjectNode) v;
        } catch (IOException | RuntimeException e) {
            // the usual parse reports it
            return null;
        } finally {
            if (r != null) {
                // a parser that was not fed is as it was
                if (!fed || clean && ++r.documents < DOCUMENTS_PER_PARSER) {
                    POOL.lazySet(cell, r);
                } else {
                    r.close();
                }
            }
        }
    }

    private static int trailingWhitespace(String s) {
        int i = s.length() - 1;
        while (i > 0) {
            char c = s.charAt(i);
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                break;
            }
            i--;
        }
        return s.length() - 1 - i;
    }

    private static boolean hasSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (Character.isSurrogate(s.charAt(i))) {
                return true;
            }
        }
        return false;
    }

    /** One non-blocking parser and its feeder. */
    private static final class Reused {
        final JsonParser parser;
        final ByteArrayFeeder feeder;
        int documents;
        /** The input of ASCII text, which is its own UTF-8: reused for each document, grown to at most MAX_CHARS bytes. */
        private byte[] buffer;
        /** Whether the text {@link #ascii} copied last holds a backslash (an escape may spell a surrogate). */
        boolean escaped;

        Reused() throws IOException {
            this.parser = FACTORY.createNonBlockingByteArrayParser();
            this.feeder = (ByteArrayFeeder) parser.getNonBlockingInputFeeder();
        }

        /**
         * {@code s} (at most MAX_CHARS characters) as UTF-8 in the reused buffer when every character is
         * ASCII, else null. The parser reads the previous document to its end before the next is written,
         * so the buffer is free again by then.
         */
        byte[] ascii(String s) {
            byte[] b = buffer;
            if (b == null || b.length < s.length()) {
                b = new byte[Math.min(MAX_CHARS, Math.max(128, Integer.highestOneBit(s.length() - 1) << 1))];
                buffer = b;
            }
            boolean backslash = false;
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c >= 0x80) {
                    return null;
                }
                backslash |= c == '\\';
                b[i] = (byte) c;
            }
            escaped = backslash;
            return b;
        }

        void close() {
            try {
                parser.close();
            } catch (IOException | RuntimeException e) {
                // nothing held but memory
            }
        }
    }
}
