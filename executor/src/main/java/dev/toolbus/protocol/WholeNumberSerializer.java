package dev.toolbus.protocol;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;

/** Writes a double that holds a whole number as an integer ({@code 3}, not {@code 3.0}). */
final class WholeNumberSerializer extends StdSerializer<Double> {

    WholeNumberSerializer() {
        super(Double.class);
    }

    @Override
    public void serialize(Double value, JsonGenerator gen, SerializerProvider provider) throws IOException {
        double d = value;
        if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            gen.writeNumber((long) d);
        } else {
            gen.writeNumber(d);
        }
    }
}
