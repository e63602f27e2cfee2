package org.jiobench.runner;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;

/** One JSON line per message or record. */
final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {
    }

    static String line(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException cannotHappenForMapsAndRecords) {
            throw new UncheckedIOException(cannotHappenForMapsAndRecords);
        }
    }
}
