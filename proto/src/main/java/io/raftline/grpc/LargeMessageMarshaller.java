package io.raftline.grpc;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Message;
import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * A protobuf marshaller for messages of megabytes (fetch responses) that hands them to gRPC in large pieces. gRPC's
 * own marshaller serializes through protobuf's 4 KiB encoder buffer, and gRPC sizes each outbound Netty buffer by the
 * write it receives: after the first 1 MiB buffer a 6 MiB response became ~1,300 buffers of 4 KiB, each a separate
 * allocation, frame command and queue entry on the way to the socket. This one encodes through a buffer of up to
 * {@link #CHUNK_BYTES}, so the same response is a handful of writes and buffers. The bytes are protobuf's own
 * encoding of the message, unchanged (the wire contract does not depend on this class). Parsing is the delegate's.
 *
 * @param <T> the message type
 */
public final class LargeMessageMarshaller<T extends Message> implements MethodDescriptor.Marshaller<T> {

    /** The largest piece written to gRPC at once (gRPC caps its buffers at 1 MiB). */
    static final int CHUNK_BYTES = 256 * 1024;

    private final MethodDescriptor.Marshaller<T> parser;

    /** Serializes in large pieces; {@link #parse} is {@code parser}'s. */
    public LargeMessageMarshaller(MethodDescriptor.Marshaller<T> parser) {
        this.parser = parser;
    }

    /**
     * {@code service} with the responses of {@code method} (one of its methods, found by name so that a request
     * marshaller set before, e.g. by {@link AliasingMarshaller#aliasingRequests}, is kept) sent in large pieces.
     */
    @SuppressWarnings("unchecked")
    public static <Q, R extends Message> ServerServiceDefinition largeResponses(ServerServiceDefinition service,
                                                                               MethodDescriptor<Q, R> method) {
        MethodDescriptor<Q, R> bound = (MethodDescriptor<Q, R>) service.getServiceDescriptor().getMethods().stream()
            .filter(m -> m.getFullMethodName().equals(method.getFullMethodName())).findFirst()
            .orElseThrow(() -> new IllegalArgumentException(method.getFullMethodName() + " is not a method of "
                + service.getServiceDescriptor().getName()));
        MethodDescriptor<Q, R> changed = bound.toBuilder()
            .setResponseMarshaller(new LargeMessageMarshaller<>(bound.getResponseMarshaller())).build();
        return AliasingMarshaller.replaceMethod(service, changed);
    }

    @Override
    public InputStream stream(T value) {
        return new EncodingStream(value);
    }

    @Override
    public T parse(InputStream stream) {
        return parser.parse(stream);
    }

    /**
     * The message as gRPC reads it: {@link #drainTo} encodes it straight into gRPC's stream; the plain InputStream
     * methods (used by the in-process transport) read a serialized copy made on first use.
     */
    private static final class EncodingStream extends InputStream implements Drainable, KnownLength {
        private Message message;
        private ByteArrayInputStream copy;

        EncodingStream(Message message) {
            this.message = message;
        }

        @Override
        public int drainTo(OutputStream target) throws IOException {
            if (message != null) {
                int size = message.getSerializedSize();
                CodedOutputStream out = CodedOutputStream.newInstance(target, Math.max(64, Math.min(size, CHUNK_BYTES)));
                message.writeTo(out);
                out.flush();
                message = null;
                return size;
            }
            if (copy != null) {
                int n = (int) copy.transferTo(target);
                copy = null;
                return n;
            }
            return 0;
        }

        private ByteArrayInputStream copy() {
            if (message != null) {
                copy = new ByteArrayInputStream(message.toByteArray());
                message = null;
            }
            return copy;
        }

        @Override
        public int read() {
            ByteArrayInputStream in = copy();
            return in == null ? -1 : in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) {
            ByteArrayInputStream in = copy();
            return in == null ? -1 : in.read(b, off, len);
        }

        @Override
        public int available() {
            if (message != null) {
                return message.getSerializedSize();
            }
            return copy == null ? 0 : copy.available();
        }
    }
}
