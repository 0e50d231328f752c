package io.raftline.grpc;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.ExtensionRegistryLite;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import com.google.protobuf.UnsafeByteOperations;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
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

    /** {@code method} with its responses parsed with aliasing (for a client's calls). */
    public static <Q, R extends Message> MethodDescriptor<Q, R> aliasingResponses(MethodDescriptor<Q, R> method, R defaultInstance) {
        return method.toBuilder().setResponseMarshaller(new AliasingMarshaller<>(defaultInstance)).build();
    }

    /**
     * {@code service} with the requests of {@code method} (one of its methods) parsed with aliasing (for a server):
     * the service is rebuilt around a descriptor holding the changed method, as gRPC requires the bound methods to
     * be the service descriptor's own.
     */
    public static <Q extends Message, R> ServerServiceDefinition aliasingRequests(ServerServiceDefinition service,
                                                                              MethodDescriptor<Q, R> method, Q defaultInstance) {
        MethodDescriptor<Q, R> aliased = method.toBuilder().setRequestMarshaller(new AliasingMarshaller<>(defaultInstance)).build();
        ServiceDescriptor original = service.getServiceDescriptor();
        ServiceDescriptor.Builder descriptor = ServiceDescriptor.newBuilder(original.getName())
            .setSchemaDescriptor(original.getSchemaDescriptor());
        boolean found = false;
        for (MethodDescriptor<?, ?> m : original.getMethods()) {
            boolean replaced = m.getFullMethodName().equals(method.getFullMethodName());
            found |= replaced;
            descriptor.addMethod(replaced ? aliased : m);
        }
        if (!found) {
            throw new IllegalArgumentException(method.getFullMethodName() + " is not a method of " + original.getName());
        }
        ServiceDescriptor rebuilt = descriptor.build();
        ServerServiceDefinition.Builder out = ServerServiceDefinition.builder(rebuilt);
        for (ServerMethodDefinition<?, ?> def : service.getMethods()) {
            addMethod(out, def, aliased);
        }
        return out.build();
    }

    @SuppressWarnings("unchecked")
    private static <Q, R> void addMethod(ServerServiceDefinition.Builder out, ServerMethodDefinition<Q, R> def,
                                         MethodDescriptor<?, ?> aliased) {
        if (def.getMethodDescriptor().getFullMethodName().equals(aliased.getFullMethodName())) {
            out.addMethod((MethodDescriptor<Q, R>) aliased, def.getServerCallHandler());
        } else {
            out.addMethod(def);
        }
    }

    @Override
    public InputStream stream(T value) {
        return sender.stream(value);
    }

    @Override
    public T parse(InputStream stream) {
        try {
            byte[] bytes = readAll(stream);
            // Aliasing needs an input protobuf knows to be immutable: CodedInputStream.newInstance(byte[]) is not
            // (its bytes fields are copied even with aliasing on), a wrapped ByteString's own input is.
            CodedInputStream in = UnsafeByteOperations.unsafeWrap(bytes).newCodedInput();
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
