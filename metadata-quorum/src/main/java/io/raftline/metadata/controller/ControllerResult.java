package io.raftline.metadata.controller;

import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.metadata.MetadataRecord;
import java.util.List;
import java.util.function.Function;

/**
 * A decision: the records to append (possibly none) and the response, computed from the image after those records
 * are committed and applied (so that values the log assigns, such as a broker epoch, can be answered). The caller
 * appends the records as one entry and answers only after it commits; with no records it answers at once from the
 * image the decision was made on.
 */
public record ControllerResult<T>(List<MetadataRecord> records, Function<MetadataImage, T> response) {

    public ControllerResult {
        records = List.copyOf(records);
    }

    public static <T> ControllerResult<T> of(List<MetadataRecord> records, T response) {
        return new ControllerResult<>(records, image -> response);
    }

    public static <T> ControllerResult<T> answer(T response) {
        return new ControllerResult<>(List.of(), image -> response);
    }
}
