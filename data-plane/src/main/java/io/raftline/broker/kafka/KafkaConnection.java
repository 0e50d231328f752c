package io.raftline.broker.kafka;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import com.google.protobuf.ByteString;
import io.netty.handler.ssl.SslHandler;
import io.raftline.broker.rpc.ProduceAdmission;
import io.raftline.common.sasl.ScramMechanism;
import io.raftline.grpc.PrincipalConnections;
import io.raftline.grpc.SaslConnection;
import io.raftline.grpc.ServerSasl;
import io.raftline.grpc.TransportSecurity;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.SaslAuthenticateRequest;
import io.raftline.protocol.broker.SaslAuthenticateResponse;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestAndSize;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Kafka client connection, after {@link KafkaFrameDecoder}. Requests are parsed with Kafka's own classes, handed
 * to {@link KafkaApis} in arrival order, and answered in that same order whatever order they complete in (Kafka's
 * clients match answers to requests by position and reject an out-of-order correlation id).
 *
 * <p>Back-pressure: at most {@code maxInFlight} requests are unanswered; past that the connection stops reading
 * (autoRead off) and TCP holds the client back. A produce request also needs a reservation of the broker-wide
 * {@link ProduceAdmission} shared with the gRPC listener (the same queued.max.requests / queued.max.request.bytes);
 * without one the connection stops reading until it is granted. Requests are handled strictly in order, so an
 * idempotent producer's batches reach the log in the order it sent them.
 *
 * <p>Threads: every field is touched only on the channel's event loop; completions from other threads hop onto it.
 * A request that cannot be parsed closes the connection with one log line.
 */
final class KafkaConnection extends ChannelInboundHandlerAdapter implements ProduceAdmission.Waiter {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaConnection.class);

    private final KafkaHandler apis;
    private final ProduceAdmission admission;
    private final int maxInFlight;
    /** Handed to the handlers, unanswered, in request order. */
    private final ArrayDeque<Pending> unanswered = new ArrayDeque<>();
    /** Parsed, not handed on yet (waiting for room or for the produce admission). */
    private final ArrayDeque<KafkaRequest> input = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private String clientHost = "";
    private boolean waitingForAdmission;
    /** Past its quota: nothing more is read or handed on until the throttle time of its last answer passed. */
    private boolean throttled;
    private boolean closed;
    /** No TLS on this connection (known once it is active): a fetch's stored records may go out with sendfile. */
    private boolean zeroCopy;

    private final TransportSecurity security;
    /** Non-null on a SASL_SSL listener. */
    private final ServerSasl sasl;
    /** This connection's SASL state (the same as a gRPC connection's), on a SASL_SSL listener. */
    private final SaslConnection session;
    /** The mechanism the last SaslHandshake chose. */
    private String handshakeMechanism;
    /** The principal of the client's certificate (User:ANONYMOUS without one), read at the first request. */
    private String certificatePrincipal;
    /** This connection's place among its principal's connections (max.connections.per.principal). */
    private final PrincipalConnections.Slot slot;

    KafkaConnection(KafkaHandler apis, ProduceAdmission admission, int maxInFlight) {
        this(apis, admission, maxInFlight, TransportSecurity.plaintext(), null);
    }

    KafkaConnection(KafkaHandler apis, ProduceAdmission admission, int maxInFlight, TransportSecurity security,
                    ServerSasl sasl) {
        this.apis = apis;
        this.admission = admission;
        this.maxInFlight = maxInFlight;
        this.security = security;
        this.sasl = sasl;
        this.session = sasl == null ? null : new SaslConnection();
        this.slot = security.principalConnections().slot();
    }

    private static final class Pending {
        final KafkaRequest request;
        boolean done;
        ApiMessage response;
        /** Close the connection once this answer is written (a failed authentication, as Kafka's broker does). */
        boolean closeAfter;
        /** The handler's answer, while it is pending (a parked fetch is cancelled when the connection closes). */
        CompletableFuture<ApiMessage> answer;

        Pending(KafkaRequest request) {
            this.request = request;
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        zeroCopy = ctx.pipeline().get(SslHandler.class) == null;
        SocketAddress remote = ctx.channel().remoteAddress();
        clientHost = remote instanceof InetSocketAddress isa && isa.getAddress() != null
            ? "/" + isa.getAddress().getHostAddress() : String.valueOf(remote);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        KafkaRequest request;
        try {
            if (closed) {
                return;
            }
            int size = frame.readableBytes();
            // A private copy: produce batches alias it, and the log stamps offsets into them in place.
            ByteBuffer bytes = ByteBuffer.allocate(size);
            frame.readBytes(bytes);
            bytes.flip();
            request = parse(bytes, size);
        } finally {
            frame.release();
        }
        if (request != null) {
            input.add(request);
            drain();
        }
    }

    /** The request, or null when it was answered here (ApiVersions of a version too new) or the connection closed. */
    private KafkaRequest parse(ByteBuffer bytes, int size) {
        short apiKey = size >= 4 ? bytes.getShort(0) : -1;
        short version = size >= 4 ? bytes.getShort(2) : -1;
        if (apiKey == ApiKeys.API_VERSIONS.id && size >= 8 && !SupportedApis.supports(ApiKeys.API_VERSIONS, version)) {
            // Kafka's rule: answer a newer ApiVersions with version 0 and UNSUPPORTED_VERSION, so the client retries
            // with the newest version listed.
            answerApiVersionsTooNew(bytes.getInt(4));
            return null;
        }
        RequestHeader header;
        AbstractRequest body;
        try {
            header = RequestHeader.parse(bytes);
            if (!SupportedApis.supports(header.apiKey(), header.apiVersion())) {
                refuse("it sent " + header.apiKey() + " version " + header.apiVersion()
                    + ", which this broker does not serve (see ApiVersions)");
                return null;
            }
            RequestAndSize parsed = AbstractRequest.parseRequest(header.apiKey(), header.apiVersion(),
                new ByteBufferAccessor(bytes));
            body = parsed.request;
        } catch (RuntimeException e) {
            refuse("cannot parse a request of " + size + " bytes (api key " + apiKey + ", version " + version + "): " + e);
            return null;
        }
        return new KafkaRequest(header, body, size, clientHost);
    }

    private void refuse(String why) {
        LOG.warn("kafka listener: closing the connection from {}: {}", clientHost, why);
        closed = true;
        ctx.close();
    }

    private void answerApiVersionsTooNew(int correlationId) {
        ApiVersionsResponseData body = new ApiVersionsResponseData().setErrorCode(Errors.UNSUPPORTED_VERSION.code())
            .setApiKeys(SupportedApis.advertised());
        write(new ResponseHeader(correlationId, (short) 0), body, (short) 0);
        ctx.flush();
    }

    /** Hands on parsed requests while there is room and the head is not waiting for the produce admission. */
    private void drain() {
        while (!closed && !throttled && !waitingForAdmission && !input.isEmpty() && unanswered.size() < maxInFlight) {
            KafkaRequest next = input.peek();
            if (next.apiKey() == ApiKeys.PRODUCE) {
                if (!admission.reserveOrWait(this)) {
                    waitingForAdmission = true;
                    break;
                }
                admission.arrived(next.sizeBytes());
            }
            input.poll();
            dispatch(next);
        }
        boolean read = !closed && !throttled && input.isEmpty() && unanswered.size() < maxInFlight;
        if (ctx.channel().config().isAutoRead() != read) {
            ctx.channel().config().setAutoRead(read);
        }
    }

    /** Called by the admission (any thread, no lock held): this connection now holds a produce reservation. */
    @Override
    public void granted() {
        ctx.executor().execute(() -> {
            waitingForAdmission = false;
            KafkaRequest next = input.poll();
            if (closed || next == null) {
                admission.cancelReservation();
                return;
            }
            admission.arrived(next.sizeBytes());
            dispatch(next);
            drain();
        });
    }

    private void dispatch(KafkaRequest arrived) {
        ApiKeys key = arrived.apiKey();
        if (key == ApiKeys.SASL_HANDSHAKE || key == ApiKeys.SASL_AUTHENTICATE) {
            Pending pending = new Pending(arrived);
            unanswered.add(pending);
            ApiMessage answer = key == ApiKeys.SASL_HANDSHAKE ? handshake(arrived) : authenticate(arrived, pending);
            ctx.executor().execute(() -> completed(pending, answer));
            return;
        }
        String who = principal(arrived);
        if (who == null || !slot.actAs(who)) {
            if (key == ApiKeys.PRODUCE) {
                admission.release(arrived.sizeBytes());
            }
            refuse(who != null ? security.principalConnections().refusal(who)
                : "authentication failed: it sent " + key + " without a SASL session"
                + (session != null && session.hadSession() ? " (its session ended: expired after "
                + "connections.max.reauth.ms, or its user was removed)" : "") + " or a client certificate");
            return;
        }
        KafkaRequest request = arrived.by(who);
        Pending pending = new Pending(request);
        unanswered.add(pending);
        CompletableFuture<ApiMessage> answer;
        try {
            answer = apis.handle(request);
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        pending.answer = answer;
        answer.whenComplete((response, err) -> {
            if (request.apiKey() == ApiKeys.PRODUCE) {
                admission.release(request.sizeBytes());
            }
            ApiMessage out = response;
            boolean silent = request.body() instanceof ProduceRequest produce && produce.acks() == 0;
            if (err != null && !silent) {
                LOG.warn("kafka listener: {} from {} failed: {}", request.apiKey(), clientHost, err.toString());
                out = request.body().getErrorResponse(err).data();
            }
            ApiMessage result = out;
            ctx.executor().execute(() -> completed(pending, result));
        });
    }

    /**
     * Who sent a request: the SASL session's user, else the client certificate's principal; null on a SASL_SSL
     * listener when there is neither (only ApiVersions and the SASL requests come before authentication).
     */
    private String principal(KafkaRequest request) {
        String certificate = certificatePrincipal();
        if (session == null || request.apiKey() == ApiKeys.API_VERSIONS) {
            return certificate;
        }
        String user = session.principal(sasl);
        if (user != null) {
            return user;
        }
        return TransportSecurity.ANONYMOUS.equals(certificate) ? null : certificate;
    }

    private String certificatePrincipal() {
        if (certificatePrincipal == null) {
            SslHandler tls = security.isTls() ? ctx.pipeline().get(SslHandler.class) : null;
            certificatePrincipal = tls == null ? TransportSecurity.ANONYMOUS : security.principalOf(tls.engine().getSession());
        }
        return certificatePrincipal;
    }

    private ApiMessage handshake(KafkaRequest request) {
        SaslHandshakeRequestData asked = (SaslHandshakeRequestData) request.body().data();
        SaslHandshakeResponseData out = new SaslHandshakeResponseData();
        if (session == null) {
            return out.setErrorCode(Errors.ILLEGAL_SASL_STATE.code());
        }
        out.setMechanisms(MECHANISMS);
        if (ScramMechanism.forName(asked.mechanism()).isEmpty()) {
            handshakeMechanism = null;
            return out.setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code());
        }
        handshakeMechanism = asked.mechanism();
        return out.setErrorCode(Errors.NONE.code());
    }

    private static final java.util.List<String> MECHANISMS = java.util.List.of("SCRAM-SHA-512", "SCRAM-SHA-256");

    private ApiMessage authenticate(KafkaRequest request, Pending pending) {
        SaslAuthenticateRequestData asked = (SaslAuthenticateRequestData) request.body().data();
        SaslAuthenticateResponseData out = new SaslAuthenticateResponseData();
        if (session == null || handshakeMechanism == null) {
            pending.closeAfter = true;
            return out.setErrorCode(Errors.ILLEGAL_SASL_STATE.code()).setErrorMessage(session == null
                ? "this listener is not SASL_SSL" : "SaslAuthenticate must follow a successful SaslHandshake");
        }
        SaslAuthenticateResponse step = session.step(SaslAuthenticateRequest.newBuilder().setMechanism(handshakeMechanism)
            .setAuthBytes(ByteString.copyFrom(asked.authBytes())).build(), sasl);
        if (step.getError().getCode() != ErrorCode.NONE) {
            LOG.info("kafka listener: authentication from {} failed: {}", clientHost, step.getError().getMessage());
            pending.closeAfter = true;
            return out.setErrorCode(KafkaErrors.code(step.getError().getCode())).setErrorMessage(step.getError().getMessage());
        }
        out.setErrorCode(Errors.NONE.code()).setAuthBytes(step.getAuthBytes().toByteArray());
        if (request.version() >= 1) {
            // set on the exchange's last step (0 before it, and without a lifetime)
            out.setSessionLifetimeMs(step.getSessionLifetimeMs());
        }
        return out;
    }

    private void completed(Pending pending, ApiMessage response) {
        pending.done = true;
        pending.response = response;
        boolean wrote = false;
        while (!unanswered.isEmpty() && unanswered.peek().done) {
            Pending head = unanswered.poll();
            if (head.response != null && !closed) {
                RequestHeader h = head.request.header();
                try {
                    write(h.toResponseHeader(), head.response, h.apiVersion());
                    wrote = true;
                    if (head.closeAfter) {
                        closed = true;
                        ctx.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER)
                            .addListener(io.netty.channel.ChannelFutureListener.CLOSE);
                        return;
                    }
                    throttle(head.response);
                } catch (RuntimeException e) {
                    // An answer this version cannot carry: a bug here, but the client must not wait for it forever.
                    LOG.error("kafka listener: cannot write the answer to {} v{} for {}; closing the connection: {}",
                        h.apiKey(), h.apiVersion(), clientHost, e.toString());
                    closed = true;
                    ctx.close();
                    return;
                }
            }
        }
        if (wrote) {
            ctx.flush();
        }
        drain();
    }

    /** Mutes the connection for the throttle time an answer carries (KIP-219: the client waits it out too). */
    private void throttle(ApiMessage response) {
        int ms = response instanceof ProduceResponseData p ? p.throttleTimeMs()
            : response instanceof FetchResponseData f ? f.throttleTimeMs() : 0;
        if (ms > 0 && !throttled) {
            throttled = true;
            ctx.executor().schedule(() -> {
                throttled = false;
                drain();
            }, ms, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
    }

    /** Writes an answer; a fetch's stored records go out from their files with sendfile unless TLS must see them. */
    private void write(ResponseHeader header, ApiMessage body, short version) {
        for (Object part : ResponseFrame.encode(ctx.alloc(), header.data(), header.headerVersion(), body, version, zeroCopy)) {
            ctx.write(part);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closed = true;
        slot.release();
        input.clear();
        // A fetch may be parked for up to its max wait (Integer.MAX_VALUE ms): nobody will read its answer now.
        for (Pending p : unanswered) {
            if (p.answer != null && p.request.apiKey() == ApiKeys.FETCH) {
                p.answer.cancel(false);
            }
        }
        if (waitingForAdmission) {
            // A grant racing with this sees the connection closed and hands the reservation back.
            admission.forget(this);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.info("kafka listener: connection from {} failed: {}", clientHost, cause.toString());
        closed = true;
        ctx.close();
    }
}
