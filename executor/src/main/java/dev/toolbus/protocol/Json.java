package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.module.blackbird.BlackbirdModule;

/**
 * The shared, configured Jackson mapper: snake_case property names, null properties left out (null
 * values inside maps are kept, so a tool's {@code data} survives as it was), unknown fields ignored,
 * floats read as {@code BigDecimal}, nesting bounded by {@link #MAX_NESTING_DEPTH}.
 */
public final class Json {

    /** The deepest nesting of objects and arrays the mapper accepts. */
    public static final int MAX_NESTING_DEPTH = 200;

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .defaultPropertyInclusion(JsonInclude.Value.construct(JsonInclude.Include.NON_NULL,
                    JsonInclude.Include.ALWAYS))
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .addModule(new BlackbirdModule())
            .build();

    static {
        MAPPER.getFactory().setStreamReadConstraints(StreamReadConstraints.builder()
                .maxNestingDepth(MAX_NESTING_DEPTH)
                .maxStringLength(64 * 1024 * 1024)
                .build());
    }

    private Json() {
    }

    /** The mapper; thread-safe, do not reconfigure. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }
}
