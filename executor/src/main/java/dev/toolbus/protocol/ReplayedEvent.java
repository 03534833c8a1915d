package dev.toolbus.protocol;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.io.IOException;
import java.util.Objects;

/**
 * An event of a finished turn published again because the turn arrived again (idempotent turns): on
 * the wire, the event with {@code "replayed": true} as its first field. Consumers that keep the first
 * copy drop events marked so.
 *
 * @param event the recorded event (never itself a {@code ReplayedEvent})
 */
@JsonSerialize(using = ReplayedEvent.Serializer.class)
public record ReplayedEvent(OutboundEvent event) implements OutboundEvent {

    /** The wire field that marks a replayed event. */
    public static final String FIELD = "replayed";

    public ReplayedEvent {
        Objects.requireNonNull(event, "event");
        if (event instanceof ReplayedEvent r) {
            event = r.event();
        }
    }

    /** The event marked replayed (an event already marked is returned as it is). */
    public static ReplayedEvent of(OutboundEvent event) {
        return event instanceof ReplayedEvent r ? r : new ReplayedEvent(event);
    }

    @Override
    public String type() {
        return event.type();
    }

    @Override
    public String streamId() {
        return event.streamId();
    }

    /** Writes {@code "replayed":true} and then the fields of the event. */
    static final class Serializer extends JsonSerializer<ReplayedEvent> {
        @Override
        public void serialize(ReplayedEvent value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            gen.writeStartObject();
            gen.writeBooleanField(FIELD, true);
            JsonSerializer<Object> inner = provider.findValueSerializer(value.event().getClass()).unwrappingSerializer(null);
            inner.serialize(value.event(), gen, provider);
            gen.writeEndObject();
        }
    }
}
