package io.raftline.grpc;

import io.grpc.Attributes;
import io.grpc.Context;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServerTransportFilter;
import io.grpc.Status;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.raftline.common.Time;
import io.raftline.common.sasl.ScramMechanism;
import io.raftline.common.tls.PrincipalMapper;
import io.raftline.common.tls.ReloadingTls;
import io.raftline.common.tls.SecurityConfig;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.BrokerServiceGrpc;
import io.raftline.protocol.broker.SaslAuthenticateRequest;
import io.raftline.protocol.broker.SaslAuthenticateResponse;
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
        PrincipalMapper.defaults(), true, null, null, PrincipalConnections.UNLIMITED);
    /**
     * How a SASL_SSL listener refuses a call on a connection without a live session: UNAUTHENTICATED with a
     * description that starts so. The SDK then authenticates again and retries the call.
     */
    public static final String SESSION_ENDED = "SASL session ";
    private static final Attributes.Key<SaslConnection> SASL_CONNECTION = Attributes.Key.create("raftline-sasl-connection");
    private static final Context.Key<SaslConnection> CONNECTION = Context.key("raftline-sasl-connection");
    private static final Context.Key<ServerSasl> SERVER_SASL = Context.key("raftline-server-sasl");

    private final ReloadingTls tls;
    private final SecurityConfig.ClientAuth clientAuth;
    private final PrincipalMapper mapper;
    /** ssl.endpoint.identification.algorithm=https: this side, as a client, checks the server's host name. */
    private final boolean verifyHostname;
    /** Non-null on a SASL_SSL listener: every call needs a SCRAM session on its connection (or a client certificate). */
    private final ServerSasl serverSasl;
    /** Non-null for a SASL_SSL client: each channel makes a SCRAM session before its first call. */
    private final ClientScram clientScram;
    /** How many connections a principal may hold on this server (max.connections.per.principal). */
    private final PrincipalConnections perPrincipal;
    private static final Attributes.Key<PrincipalConnections.Slot> SLOT = Attributes.Key.create("raftline-principal-slot");
    private SslContext serverContext;
    private SslContext plainServerContext;
    private SslContext clientContext;

    /** A client's SCRAM user. */
    public record ClientScram(ScramMechanism mechanism, String username, String password, Time time) {
        @Override
        public String toString() {
            return "ClientScram[" + mechanism.mechanismName() + ", " + username + "]";
        }
    }

    private TransportSecurity(ReloadingTls tls, SecurityConfig.ClientAuth clientAuth, PrincipalMapper mapper,
                              boolean verifyHostname, ServerSasl serverSasl, ClientScram clientScram,
                              PrincipalConnections perPrincipal) {
        this.perPrincipal = perPrincipal;
        this.serverSasl = serverSasl;
        this.clientScram = clientScram;
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
        return new TransportSecurity(tls, clientAuth, mapper, verifyHostname, null, null, PrincipalConnections.UNLIMITED);
    }

    /** This TLS listener as SASL_SSL: calls need a SCRAM session (SaslAuthenticate) or a client certificate. */
    public TransportSecurity withServerSasl(ServerSasl sasl) {
        if (tls == null) {
            throw new IllegalStateException("SASL needs TLS (SASL_SSL)");
        }
        return new TransportSecurity(tls, clientAuth, mapper, verifyHostname, sasl, clientScram, perPrincipal);
    }

    /** This TLS client as SASL_SSL: each channel authenticates with SCRAM before its first call. */
    public TransportSecurity withClientScram(ClientScram scram) {
        if (tls == null) {
            throw new IllegalStateException("SASL needs TLS (SASL_SSL)");
        }
        return new TransportSecurity(tls, clientAuth, mapper, verifyHostname, serverSasl, scram, perPrincipal);
    }

    /** This listener with each principal's connections counted and bounded (max.connections.per.principal). */
    public TransportSecurity withPrincipalConnections(PrincipalConnections limits) {
        return new TransportSecurity(tls, clientAuth, mapper, verifyHostname, serverSasl, clientScram, limits);
    }

    public PrincipalConnections principalConnections() {
        return perPrincipal;
    }

    public boolean isSasl() {
        return serverSasl != null || clientScram != null;
    }

    /** Whether {@code status} is a SASL_SSL listener's refusal of a call on a connection without a live session. */
    public static boolean isSessionEnded(Status status) {
        return status.getCode() == Status.Code.UNAUTHENTICATED && status.getDescription() != null
            && status.getDescription().startsWith(SESSION_ENDED);
    }

    /**
     * Serves one SaslAuthenticate step on the connection of the call being served; on a listener that is not
     * SASL_SSL the answer is UNSUPPORTED_SASL_MECHANISM.
     */
    public static SaslAuthenticateResponse saslStep(SaslAuthenticateRequest request) {
        SaslConnection connection = CONNECTION.get();
        ServerSasl sasl = SERVER_SASL.get();
        if (connection == null || sasl == null) {
            return SaslAuthenticateResponse.newBuilder().setError(io.raftline.protocol.Error.newBuilder()
                .setCode(ErrorCode.UNSUPPORTED_SASL_MECHANISM)
                .setMessage("this listener does not take SASL (it is not SASL_SSL)")).build();
        }
        return connection.step(request, sasl);
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
        if (clientScram != null) {
            builder.intercept(new ScramClientInterceptor(clientScram.mechanism(), clientScram.username(),
                clientScram.password(), clientScram.time()));
        }
        return builder.sslContext(clientContext());
    }

    /** Secures a server: plaintext, or TLS with this side's certificate, asking for client certificates as configured. */
    public NettyServerBuilder secure(NettyServerBuilder builder) {
        if (perPrincipal != PrincipalConnections.UNLIMITED) {
            builder.addTransportFilter(new ServerTransportFilter() {
                @Override
                public Attributes transportReady(Attributes attributes) {
                    return attributes.toBuilder().set(SLOT, perPrincipal.slot()).build();
                }

                @Override
                public void transportTerminated(Attributes attributes) {
                    PrincipalConnections.Slot slot = attributes.get(SLOT);
                    if (slot != null) {
                        slot.release();
                    }
                }
            });
        }
        if (tls == null) {
            return builder;
        }
        if (serverSasl != null) {
            builder.addTransportFilter(new ServerTransportFilter() {
                @Override
                public Attributes transportReady(Attributes attributes) {
                    return attributes.toBuilder().set(SASL_CONNECTION, new SaslConnection()).build();
                }
            });
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

    /** TLS with client certificates asked for (required or requested): nodes present theirs and are known by them. */
    public boolean identifiesClients() {
        return tls != null && clientAuth != SecurityConfig.ClientAuth.NONE;
    }

    /**
     * A TLS server context for a listener that is not gRPC (the Kafka listener: no ALPN), asking for client
     * certificates as configured; null when plaintext.
     */
    public synchronized SslContext plainServerContext() {
        if (tls == null) {
            return null;
        }
        if (plainServerContext == null) {
            try {
                plainServerContext = SslContextBuilder.forServer(tls.keyManager()).sslProvider(PROVIDER)
                    .trustManager(tls.trustManager()).clientAuth(nettyClientAuth()).build();
            } catch (SSLException e) {
                throw new IllegalStateException("cannot make a TLS server context: " + e.getMessage(), e);
            }
        }
        return plainServerContext;
    }

    private ClientAuth nettyClientAuth() {
        return switch (clientAuth) {
            case REQUIRED -> ClientAuth.REQUIRE;
            case REQUESTED -> ClientAuth.OPTIONAL;
            case NONE -> ClientAuth.NONE;
        };
    }

    /** The principal of a TLS session: its peer's leaf certificate's subject through the mapping rules. */
    public String principalOf(SSLSession session) {
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

    synchronized SslContext serverContext() {
        if (serverContext == null) {
            try {
                SslContextBuilder b = GrpcSslContexts.configure(SslContextBuilder.forServer(tls.keyManager()), PROVIDER)
                    .trustManager(tls.trustManager())
                    .clientAuth(nettyClientAuth());
                serverContext = wholeReads(b.build());
            } catch (SSLException e) {
                throw new IllegalStateException("cannot make a TLS server context: " + e.getMessage(), e);
            }
        }
        return serverContext;
    }

    synchronized SslContext clientContext() {
        if (clientContext == null) {
            try {
                SslContextBuilder b = GrpcSslContexts.configure(SslContextBuilder.forClient(), PROVIDER)
                    .trustManager(tls.trustManager())
                    .endpointIdentificationAlgorithm(verifyHostname ? "HTTPS" : "");
                if (tls.keyManager() != null) {
                    b.keyManager(tls.keyManager());
                }
                clientContext = wholeReads(b.build());
            } catch (SSLException e) {
                throw new IllegalStateException("cannot make a TLS client context: " + e.getMessage(), e);
            }
        }
        return clientContext;
    }

    /** BoringSSL's engines for gRPC decrypt a whole read at once ({@link WholeReadSslContext}); the JDK's stay as they are. */
    static SslContext wholeReads(SslContext context) {
        return PROVIDER == SslProvider.OPENSSL ? new WholeReadSslContext(context) : context;
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
            boolean scram = false;
            if (serverSasl != null) {
                SaslConnection connection = call.getAttributes().get(SASL_CONNECTION);
                if (call.getMethodDescriptor().getFullMethodName().equals(SASL_METHOD)) {
                    return Contexts.interceptCall(Context.current().withValue(CONNECTION, connection)
                        .withValue(SERVER_SASL, serverSasl), call, headers, next);
                }
                String session = connection == null ? null : connection.principal(serverSasl);
                if (session != null) {
                    principal = session;
                    scram = true;
                } else if (ANONYMOUS.equals(principal)) {
                    call.close(Status.UNAUTHENTICATED.withDescription(sessionEnded(connection)), new Metadata());
                    return new ServerCall.Listener<>() { };
                }
            }
            PrincipalConnections.Slot slot = call.getAttributes().get(SLOT);
            if (slot != null && !slot.actAs(principal)) {
                call.close(Status.RESOURCE_EXHAUSTED.withDescription(perPrincipal.refusal(principal)), new Metadata());
                return new ServerCall.Listener<>() { };
            }
            if (nodesOnly != null && !nodesOnly.test(principal)) {
                call.close(Status.PERMISSION_DENIED.withDescription(principal + " is not a node principal: "
                    + call.getMethodDescriptor().getBareMethodName() + " is for cluster nodes only"), new Metadata());
                return new ServerCall.Listener<>() { };
            }
            String host = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR) instanceof InetSocketAddress a
                && a.getAddress() != null ? a.getAddress().getHostAddress() : UNKNOWN_HOST;
            ServerCall.Listener<Q> listener = Contexts.interceptCall(Context.current().withValue(PRINCIPAL, principal)
                .withValue(CLIENT_HOST, host).withValue(CLIENT_ID, clientIdOf(headers.get(USER_AGENT))), call, headers, next);
            return scram ? new SessionListener<>(listener, call, call.getAttributes().get(SASL_CONNECTION)) : listener;
        }
    }

    private static final String SASL_METHOD = BrokerServiceGrpc.getSaslAuthenticateMethod().getFullMethodName();

    private static String sessionEnded(SaslConnection connection) {
        return connection != null && connection.hadSession()
            ? SESSION_ENDED + "ended (expired after connections.max.reauth.ms, or the user was removed): authenticate again"
            : SESSION_ENDED + "required: this listener is SASL_SSL; authenticate with SaslAuthenticate (SCRAM-SHA-512) "
                + "or a client certificate first";
    }

    /**
     * Checks a SCRAM session at each message of a call (a stream can outlive its session): once it has ended, the
     * service sees the call cancelled and the client gets {@link #SESSION_ENDED}.
     */
    private final class SessionListener<Q, R> extends ForwardingServerCallListener.SimpleForwardingServerCallListener<Q> {
        private final ServerCall<Q, R> call;
        private final SaslConnection connection;
        private boolean ended;

        SessionListener(ServerCall.Listener<Q> delegate, ServerCall<Q, R> call, SaslConnection connection) {
            super(delegate);
            this.call = call;
            this.connection = connection;
        }

        @Override
        public void onMessage(Q message) {
            if (ended) {
                return;
            }
            if (connection.principal(serverSasl) == null) {
                ended = true;
                super.onCancel();
                call.close(Status.UNAUTHENTICATED.withDescription(sessionEnded(connection)), new Metadata());
                return;
            }
            super.onMessage(message);
        }

        @Override
        public void onHalfClose() {
            if (!ended) {
                super.onHalfClose();
            }
        }

        @Override
        public void onCancel() {
            if (!ended) {
                super.onCancel();
            }
        }

        @Override
        public void onComplete() {
            if (!ended) {
                super.onComplete();
            }
        }

        @Override
        public void onReady() {
            if (!ended) {
                super.onReady();
            }
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
