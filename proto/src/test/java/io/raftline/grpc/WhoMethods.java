package io.raftline.grpc;

import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** Test methods of a "test.Who" service whose answers are text: who the server saw the caller as. */
final class WhoMethods {

    static final MethodDescriptor.Marshaller<String> TEXT = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
            return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
            try {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    };
    static final MethodDescriptor<String, String> WHO_AM_I = method(MethodDescriptor.MethodType.UNARY, "AmI");
    static final MethodDescriptor<String, String> WHO_STREAM = method(MethodDescriptor.MethodType.BIDI_STREAMING, "Stream");

    private WhoMethods() {
    }

    private static MethodDescriptor<String, String> method(MethodDescriptor.MethodType type, String name) {
        return MethodDescriptor.<String, String>newBuilder().setType(type).setFullMethodName("test.Who/" + name)
            .setRequestMarshaller(TEXT).setResponseMarshaller(TEXT).build();
    }
}
