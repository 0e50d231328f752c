package io.raftline.grpc;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolNegotiator;
import io.netty.handler.ssl.SslContext;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSessionContext;

/**
 * An OpenSSL (BoringSSL) context whose engines decrypt everything a socket read brought in one unwrap, instead of one
 * TLS record (at most 16 KiB) at a time.
 *
 * <p>gRPC makes its {@code SslHandler} from {@link #newEngine}, and Netty's OpenSSL engines made that way are in "JDK
 * compatibility mode": the handler cuts the bytes read into single records, unwraps each alone and passes each
 * record's plaintext down the pipeline on its own, so a 1 MiB fetch answer crosses JNI and the HTTP/2 decoder about
 * 64 times. Engines made for {@link SslContext#newHandler} are not in that mode; this context hands gRPC those. The
 * bytes on the wire are the same TLS records either way. On the perf runs of docs/performance.md the per-record mode
 * was the largest part of TLS's cost on the consumer.
 */
final class WholeReadSslContext extends SslContext {
    private final SslContext delegate;

    WholeReadSslContext(SslContext delegate) {
        this.delegate = delegate;
    }

    @Override
    public SSLEngine newEngine(ByteBufAllocator alloc) {
        return delegate.newHandler(alloc).engine();
    }

    @Override
    public SSLEngine newEngine(ByteBufAllocator alloc, String peerHost, int peerPort) {
        return delegate.newHandler(alloc, peerHost, peerPort).engine();
    }

    @Override
    public boolean isClient() {
        return delegate.isClient();
    }

    @Override
    public List<String> cipherSuites() {
        return delegate.cipherSuites();
    }

    @Override
    @SuppressWarnings("deprecation")
    public ApplicationProtocolNegotiator applicationProtocolNegotiator() {
        return delegate.applicationProtocolNegotiator();
    }

    @Override
    public SSLSessionContext sessionContext() {
        return delegate.sessionContext();
    }
}
