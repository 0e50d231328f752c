package io.raftline.broker.rpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.raftline.broker.log.FetchDataInfo;

/** Stored batch bytes as a protobuf {@code bytes} field, read once from the segment files. */
final class StoredBytes {

    private StoredBytes() {
    }

    static ByteString of(FetchDataInfo data) {
        // The buffer is ours alone (freshly read), so protobuf may keep it without a second copy.
        return UnsafeByteOperations.unsafeWrap(data.readIntoBuffer());
    }
}
