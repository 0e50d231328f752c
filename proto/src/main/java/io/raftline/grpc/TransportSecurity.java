package io.raftline.grpc;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.raftline.common.tls.PrincipalMapper;
import io.raftline.common.tls.ReloadingTls;
import io.raftline.common.tls.SecurityConfig;
import java.net.InetSocketAddress;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Set;
import java.util.function.Predicate;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * How one gRPC listener, and the channels to it, are secured: plaintext, or TLS over {@link ReloadingTls} (the JDK's
 * TLS through Netty, with the server's host name verified by every client). A TLS server puts the caller's principal
 * in the gRPC {@link Context} ({@link #principal()}): {@code User:<mapped subject>} of its client certificate, or
 * {@link #ANONYMOUS} without one.
 */
public final class TransportSecurity {

    public static final String ANONYMOUS = "User:ANONYMOUS";
    /**
     * BoringSSL (netty-tcnative) where it loads, else the JDK's SSLEngine: on the 3-node perf runs the JDK's engine
     * cost 35-40 % of produce and over half of consume throughput (docs/performance.md).
     */
    static final SslProvider PROVIDER = io.netty.handler.ssl.OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
    private static final Context.Key<String> PRINCIPAL = Context.keyWithDefault("raftline-principal", ANONYMOUS);
    /** What a call whose peer address is unknown (in-process) is seen to come from. */
    public static final String UNKNOWN_HOST = "unknown";
    private static final Context.Key<String> CLIENT_HOST = Context.keyWithDefault("raftline-client-host", UNKNOWN_HOST);
    private static final Context.Key<String> CLIENT_ID = Context.keyWithDefault("raftline-client-id", "");
    private static final Metadata.Key<String> USER_AGENT = Metadata.Key.of("user-agent", Metadata.ASCII_STRING_MARSHALLER);
    /** The SDK's user agent: this, then its client.id (then gRPC's own part after a space). */
    public static final String SDK_AGENT = "raftline-client/";
    private static final TransportSecurity PLAINTEXT = new TransportSecurity(null, SecurityConfig.ClientAuth.NONE,
        PrincipalMapper.defaults(), true);

    private final ReloadingTls tls;
    private final SecurityConfig.ClientAuth clientAuth;
    private final PrincipalMapper mapper;
    /** ssl.endpoint.identification.algorithm=https: this side, as a client, checks the server's host name. */
    private final boolean verifyHostname;
    private SslContext serverContext;
    private SslContext clientContext;

    private TransportSecurity(ReloadingTls tls, SecurityConfig.ClientAuth clientAuth, PrincipalMapper mapper,
                              boolean verifyHostname) {
        this.verifyHostname = verifyHostname;
        this.tls = tls;
        this.clientAuth = clientAuth;
        this.mapper = mapper;
    }

    public static TransportSecurity plaintext() {
        return PLAINTEXT;
    }

    public static TransportSecurity tls(ReloadingTls tls, SecurityConfig.ClientAuth clientAuth, PrincipalMapper mapper) {
        return tls(tls, clientAuth, mapper, true);
    }

    /** {@code verifyHostname}: whether this side, as a client, checks the server's host name (Kafka's https). */
    public static TransportSecurity tls(ReloadingTls tls, SecurityConfig.ClientAuth clientAuth, PrincipalMapper mapper,
                                        boolean verifyHostname) {
        return new TransportSecurity(tls, clientAuth, mapper, verifyHostname);
    }

    public boolean isTls() {
        return tls != null;
    }

    /** TLS with client certificates required: every caller has a verified principal. */
    public boolean isMutual() {
        return tls != null && clientAuth == SecurityConfig.ClientAuth.REQUIRED;
    }

    /** The principal of the call being served (in a server handler), {@link #ANONYMOUS} without a certificate. */
    public static String principal() {
        return PRINCIPAL.get();
    }

    /** The IP address of the client of the call being served (in a server handler), for ACLs' host. */
    public static String clientHost() {
        return CLIENT_HOST.get();
    }

    /**
     * Runs {@code body} as a call from {@code principal} at {@code host}: what a listener that is not gRPC (the Kafka
     * listener) does before it calls the broker's service, so that its checks see the right caller.
     */
    public static <T> T callAs(String principal, String host, java.util.function.Supplier<T> body) {
        Context previous = Context.current().withValue(PRINCIPAL, principal).withValue(CLIENT_HOST, host).attach();
        try {
            return body.get();
        } finally {
            Context.current().detach(previous);
        }
    }

    /** The client.id of the call being served ("" when the client sent none), for client-id quotas. */
    public static String clientId() {
        return CLIENT_ID.get();
    }

    /** The client.id in an SDK user agent ({@code raftline-client/<client.id> grpc-java-netty/...}), else "". */
    static String clientIdOf(String userAgent) {
        if (userAgent == null || !userAgent.startsWith(SDK_AGENT)) {
            return "";
        }
        int end = userAgent.indexOf(' ', SDK_AGENT.length());
        return userAgent.substring(SDK_AGENT.length(), end < 0 ? userAgent.length() : end);
    }

    /** Secures a channel: plaintext, or TLS presenting this side's certificate (if any) and verifying the server. */
    public NettyChannelBuilder secure(NettyChannelBuilder builder) {
        if (tls == null) {
            return builder.usePlaintext();
        }
        return builder.sslContext(clientContext());
    }

    /** Secures a server: plaintext, or TLS with this side's certificate, asking for client certificates as configured. */
    public NettyServerBuilder secure(NettyServerBuilder builder) {
        if (tls == null) {
            return builder;
        }
        return builder.sslContext(serverContext());
    }

    /**
     * {@code service} with the caller's principal in the Context of each call; with {@code nodesOnly}, and on an mTLS
     * listener, calls from principals {@code isNode} refuses fail with PERMISSION_DENIED before reaching it.
     */
    public ServerServiceDefinition intercept(ServerServiceDefinition service, Predicate<String> isNode, boolean nodesOnly) {
        return ServerInterceptors.intercept(service, new PrincipalInterceptor(nodesOnly && isMutual() ? isNode : null));
    }

    /** The principal of a TLS session: its peer's leaf certificate's subject through the mapping rules. */
    String principalOf(SSLSession session) {
        if (session == null) {
            return ANONYMOUS;
        }
        Certificate[] peer;
        try {
            peer = session.getPeerCertificates();
        } catch (SSLPeerUnverifiedException e) {
            return ANONYMOUS;
        }
        if (peer.length == 0 || !(peer[0] instanceof X509Certificate leaf)) {
            return ANONYMOUS;
        }
        return mapper.principal(leaf.getSubjectX500Principal().getName());
    }

    private synchronized SslContext serverContext() {
        if (serverContext == null) {
            try {
                SslContextBuilder b = GrpcSslContexts.configure(SslContextBuilder.forServer(tls.keyManager()), PROVIDER)
                    .trustManager(tls.trustManager())
                    .clientAuth(switch (clientAuth) {
                        case REQUIRED -> ClientAuth.REQUIRE;
                        case REQUESTED -> ClientAuth.OPTIONAL;
                        case NONE -> ClientAuth.NONE;
                    });
                serverContext = b.build();
            } catch (SSLException e) {
                throw new IllegalStateException("cannot make a TLS server context: " + e.getMessage(), e);
            }
        }
        return serverContext;
    }

    private synchronized SslContext clientContext() {
        if (clientContext == null) {
            try {
                SslContextBuilder b = GrpcSslContexts.configure(SslContextBuilder.forClient(), PROVIDER)
                    .trustManager(tls.trustManager())
                    .endpointIdentificationAlgorithm(verifyHostname ? "HTTPS" : "");
                if (tls.keyManager() != null) {
                    b.keyManager(tls.keyManager());
                }
                clientContext = b.build();
            } catch (SSLException e) {
                throw new IllegalStateException("cannot make a TLS client context: " + e.getMessage(), e);
            }
        }
        return clientContext;
    }

    /** Puts the principal in the Context; refuses non-node principals where asked. */
    private final class PrincipalInterceptor implements ServerInterceptor {
        private final Predicate<String> nodesOnly;

        PrincipalInterceptor(Predicate<String> nodesOnly) {
            this.nodesOnly = nodesOnly;
        }

        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
            String principal = ANONYMOUS;
            try {
                if (tls != null) {
                    principal = principalOf(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
                }
            } catch (IllegalArgumentException e) {
                call.close(Status.UNAUTHENTICATED.withDescription("authentication failed: " + e.getMessage()), new Metadata());
                return new ServerCall.Listener<>() { };
            }
            if (nodesOnly != null && !nodesOnly.test(principal)) {
                call.close(Status.PERMISSION_DENIED.withDescription(principal + " is not a node principal: "
                    + call.getMethodDescriptor().getBareMethodName() + " is for cluster nodes only"), new Metadata());
                return new ServerCall.Listener<>() { };
            }
            String host = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR) instanceof InetSocketAddress a
                && a.getAddress() != null ? a.getAddress().getHostAddress() : UNKNOWN_HOST;
            return Contexts.interceptCall(Context.current().withValue(PRINCIPAL, principal).withValue(CLIENT_HOST, host)
                .withValue(CLIENT_ID, clientIdOf(headers.get(USER_AGENT))), call, headers, next);
        }
    }

    /** Node principals: {@code super.users} and this node's own principal. */
    public static Predicate<String> nodePrincipals(Set<String> superUsers, String ownPrincipal) {
        return p -> superUsers.contains(p) || p.equals(ownPrincipal);
    }

    /** This side's own principal (its certificate's subject through the rules), or {@link #ANONYMOUS}. */
    public String ownPrincipal() {
        if (tls == null || tls.current().certificate() == null) {
            return ANONYMOUS;
        }
        return mapper.principal(tls.current().certificate().getSubjectX500Principal().getName());
    }
}
