package dev.toolbus.config;

import com.fasterxml.jackson.core.io.IOContext;
import com.fasterxml.jackson.dataformat.yaml.YAMLAnchorReplayingParser;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.CharArrayReader;
import java.io.IOException;
import java.io.Reader;

/**
 * A YAML factory whose parsers resolve aliases ({@code *name} replays what {@code &name} anchored, and
 * {@code <<: *name} merges a mapping) instead of reporting an alias as a string holding its name, so
 * {@code deny: *blocked} denies what the anchor lists. An alias without its anchor is a parse error;
 * Jackson bounds the replayed events, anchors and references.
 */
final class AnchorYamlFactory extends YAMLFactory {

    private static final long serialVersionUID = 1L;

    @Override
    protected YAMLParser _createParser(char[] data, int offset, int len, IOContext ctxt, boolean recyclable)
            throws IOException {
        return _createParser(new CharArrayReader(data, offset, len), ctxt);
    }

    @Override
    protected YAMLParser _createParser(Reader r, IOContext ctxt) throws IOException {
        return new YAMLAnchorReplayingParser(ctxt, _parserFeatures, _yamlParserFeatures, _loaderOptions, _objectCodec, r);
    }
}
