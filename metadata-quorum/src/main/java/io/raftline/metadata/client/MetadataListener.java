package io.raftline.metadata.client;

import io.raftline.metadata.image.MetadataDelta;
import io.raftline.metadata.image.MetadataImage;

/** Told about each change of a broker's metadata image, in order, on the follower's single thread. */
public interface MetadataListener {

    /** {@code delta} says what changed; {@code image} is the new image (also {@code delta.image()}). */
    void onUpdate(MetadataDelta delta, MetadataImage image);
}
