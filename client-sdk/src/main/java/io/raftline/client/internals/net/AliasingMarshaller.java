package io.raftline.client.internals.net;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.ExtensionRegistryLite;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.protobuf.ProtoUtils;
import java.io.IOException;
import java.io.InputStream;

/**
 * A protobuf marshaller whose parsed {@code bytes} fields share the memory of the received message instead of
 * being copied out of it: the message is read once into its own array and parsed with aliasing on. gRPC's default
 * marshaller copies every {@code bytes} field (and above 4 MiB reads through a stream decoder that copies in
 * chunks), which for a fetch response means a second copy of every record batch. Sending is the default's.
 *
 * <p>Contract: the parsed message keeps the whole received array alive as long as any of its {@code bytes} fields
 * is referenced; each message gets a fresh array, never reused.
 *
 * @param <T> the message type
 */
public final class AliasingMarshaller<T extends Message> implements MethodDescriptor.Marshaller<T> {

    private final MethodDescriptor.Marshaller<T> sender;
    private final Parser<T> parser;

    @SuppressWarnings("unchecked")
    public AliasingMarshaller(T defaultInstance) {
        this.sender = ProtoUtils.marshaller(defaultInstance);
        this.parser = (Parser<T>) defaultInstance.getParserForType();
    }

    @Override
    public InputStream stream(T value) {
        return sender.stream(value);
    }

    @Override
    public T parse(InputStream stream) {
        try {
            byte[] bytes = readAll(stream);
            CodedInputStream in = CodedInputStream.newInstance(bytes);
            in.enableAliasing(true);
            in.setSizeLimit(Integer.MAX_VALUE);
            T message = parser.parseFrom(in, ExtensionRegistryLite.getEmptyRegistry());
            in.checkLastTagWas(0);
            return message;
        } catch (InvalidProtocolBufferException e) {
            throw Status.INTERNAL.withDescription("Invalid protobuf byte sequence").withCause(e).asRuntimeException();
        } catch (IOException e) {
            throw Status.INTERNAL.withDescription("Could not read the message").withCause(e).asRuntimeException();
        }
    }

    private static byte[] readAll(InputStream stream) throws IOException {
        if (stream instanceof KnownLength) {
            int size = stream.available();
            byte[] bytes = new byte[size];
            int read = 0;
            while (read < size) {
                int n = stream.read(bytes, read, size - read);
                if (n < 0) {
                    throw new IOException("message ended after " + read + " of " + size + " bytes");
                }
                read += n;
            }
            if (stream.read() != -1) {
                throw new IOException("message longer than the " + size + " bytes announced");
            }
            return bytes;
        }
        return stream.readAllBytes();
    }
}
