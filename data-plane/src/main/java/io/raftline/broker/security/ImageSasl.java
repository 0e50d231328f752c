package io.raftline.broker.security;

import io.raftline.acl.ScramTypes;
import io.raftline.common.Time;
import io.raftline.common.sasl.ScramCredential;
import io.raftline.common.sasl.ScramMechanism;
import io.raftline.grpc.ServerSasl;
import io.raftline.metadata.image.MetadataImage;
import java.util.Optional;
import java.util.function.Supplier;

/** SASL sessions checked against the SCRAM users of this broker's current metadata image. */
public final class ImageSasl implements ServerSasl {

    private final Supplier<MetadataImage> image;
    private final Time time;
    private final long maxReauthMs;

    public ImageSasl(Supplier<MetadataImage> image, Time time, long maxReauthMs) {
        this.image = image;
        this.time = time;
        this.maxReauthMs = maxReauthMs;
    }

    @Override
    public Optional<ScramCredential> credential(String user, ScramMechanism mechanism) {
        return image.get().scramUsers().get(user, ScramTypes.type(mechanism)).map(ScramTypes::credential);
    }

    @Override
    public boolean exists(String user, ScramMechanism mechanism) {
        return image.get().scramUsers().has(user, ScramTypes.type(mechanism));
    }

    @Override
    public long nowMs() {
        return time.hiResMilliseconds();
    }

    @Override
    public long maxReauthMs() {
        return maxReauthMs;
    }
}
