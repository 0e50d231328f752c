package io.raftline.grpc;

import com.google.protobuf.ByteString;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.raftline.common.Time;
import io.raftline.common.sasl.ScramClient;
import io.raftline.common.sasl.ScramException;
import io.raftline.common.sasl.ScramMechanism;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.BrokerServiceGrpc;
import io.raftline.protocol.broker.SaslAuthenticateRequest;
import io.raftline.protocol.broker.SaslAuthenticateResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A client channel's SCRAM session on a SASL_SSL listener. The first call waits (without blocking a thread) while
 * the two SaslAuthenticate steps run on the same channel; later calls go straight through. Past 85 % of the session
 * lifetime the server gave, the next call starts a re-authentication in the background (KIP-368). When the server
 * says a call's connection has no session (a reconnect, an expiry), the call fails as UNAVAILABLE, so the client's
 * usual retry sends it again, and the next call authenticates first. One instance per channel.
 */
final class ScramClientInterceptor implements ClientInterceptor {

    private static final long STEP_TIMEOUT_MS = 10_000;

    private final ScramMechanism mechanism;
    private final String username;
    private final String password;
    private final Time time;
    private Channel channel;
    /** Whether the server holds a session for this channel's connection, as far as this side knows. */
    private boolean valid;
    private long reauthAtMs = Long.MAX_VALUE;
    private CompletableFuture<Void> running;

    ScramClientInterceptor(ScramMechanism mechanism, String username, String password, Time time) {
        this.mechanism = mechanism;
        this.username = username;
        this.password = password;
        this.time = time;
    }

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        if (method.getFullMethodName().equals(BrokerServiceGrpc.getSaslAuthenticateMethod().getFullMethodName())) {
            return next.newCall(method, options);
        }
        CompletableFuture<Void> wait;
        synchronized (this) {
            channel = next;
            if (valid) {
                if (time.hiResMilliseconds() >= reauthAtMs && running == null) {
                    running = authenticate();
                }
                wait = null;
            } else {
                if (running == null) {
                    running = authenticate();
                }
                wait = running;
            }
        }
        if (wait == null || wait.isDone() && !wait.isCompletedExceptionally()) {
            return new SessionCall<>(next.newCall(method, options));
        }
        return new PendingCall<>(wait, () -> new SessionCall<>(next.newCall(method, options)), options.getExecutor());
    }

    private synchronized void invalidate() {
        valid = false;
    }

    /** Both steps on {@link #channel}; completes when the server proved itself and holds the session. */
    private CompletableFuture<Void> authenticate() {
        ScramClient scram = new ScramClient(mechanism, username, password);
        CompletableFuture<Void> done = step(scram.firstMessage())
            .thenCompose(first -> {
                try {
                    return step(scram.finalMessage(first.getAuthBytes().toByteArray()));
                } catch (ScramException e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            })
            .thenAccept(last -> {
                try {
                    scram.verify(last.getAuthBytes().toByteArray());
                } catch (ScramException e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
                long lifetime = last.getSessionLifetimeMs();
                synchronized (this) {
                    valid = true;
                    reauthAtMs = lifetime > 0 ? time.hiResMilliseconds() + lifetime * 85 / 100 : Long.MAX_VALUE;
                }
            });
        done.whenComplete((v, err) -> {
            synchronized (this) {
                running = null;
                if (err != null) {
                    valid = false;
                }
            }
        });
        return done;
    }

    private CompletableFuture<SaslAuthenticateResponse> step(byte[] message) {
        CompletableFuture<SaslAuthenticateResponse> out = new CompletableFuture<>();
        Channel c;
        synchronized (this) {
            c = channel;
        }
        ClientCalls.asyncUnaryCall(c.newCall(BrokerServiceGrpc.getSaslAuthenticateMethod(),
                CallOptions.DEFAULT.withDeadlineAfter(STEP_TIMEOUT_MS, TimeUnit.MILLISECONDS)),
            SaslAuthenticateRequest.newBuilder().setMechanism(mechanism.mechanismName())
                .setAuthBytes(ByteString.copyFrom(message)).build(),
            new StreamObserver<>() {
                @Override
                public void onNext(SaslAuthenticateResponse r) {
                    if (r.getError().getCode() != ErrorCode.NONE) {
                        out.completeExceptionally(Status.UNAUTHENTICATED.withDescription(r.getError().getMessage())
                            .asRuntimeException());
                    } else {
                        out.complete(r);
                    }
                }

                @Override
                public void onError(Throwable t) {
                    out.completeExceptionally(t);
                }

                @Override
                public void onCompleted() {
                    out.completeExceptionally(Status.INTERNAL.withDescription("no SaslAuthenticate answer").asRuntimeException());
                }
            });
        return out;
    }

    /** Turns the server's "no session on this connection" into a retriable failure and forgets the session. */
    private final class SessionCall<Q, R> extends ForwardingClientCall.SimpleForwardingClientCall<Q, R> {
        SessionCall(ClientCall<Q, R> delegate) {
            super(delegate);
        }

        @Override
        public void start(Listener<R> listener, Metadata headers) {
            super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                @Override
                public void onClose(Status status, Metadata trailers) {
                    if (TransportSecurity.isSessionEnded(status)) {
                        invalidate();
                        status = Status.UNAVAILABLE.withDescription(status.getDescription() + "; re-authenticating");
                    }
                    super.onClose(status, trailers);
                }
            }, headers);
        }
    }

    /** A call held back until the session is made: its actions are queued, then replayed in order on the real call. */
    private static final class PendingCall<Q, R> extends ClientCall<Q, R> {
        private final List<Consumer<ClientCall<Q, R>>> queued = new ArrayList<>();
        private ClientCall<Q, R> real;
        private Listener<R> listener;
        private Status failed;
        /** Where the call's listener runs (a blocking stub waits on its own executor); null: any thread. */
        private final java.util.concurrent.Executor executor;

        PendingCall(CompletableFuture<Void> ready, java.util.function.Supplier<ClientCall<Q, R>> make,
                    java.util.concurrent.Executor executor) {
            this.executor = executor;
            ready.whenComplete((v, err) -> {
                if (err == null) {
                    attach(make.get());
                } else {
                    Throwable cause = err instanceof java.util.concurrent.CompletionException && err.getCause() != null
                        ? err.getCause() : err;
                    Status s = cause instanceof io.grpc.StatusRuntimeException sre ? sre.getStatus()
                        : Status.UNAUTHENTICATED.withDescription(cause.getMessage());
                    if (s.getCode() == Status.Code.UNAUTHENTICATED && s.getDescription() != null
                        && !s.getDescription().startsWith("authentication failed")) {
                        s = Status.UNAUTHENTICATED.withDescription("authentication failed: " + s.getDescription());
                    }
                    fail(s);
                }
            });
        }

        private void attach(ClientCall<Q, R> call) {
            synchronized (this) {
                if (failed != null) {
                    return;
                }
                real = call;
                for (Consumer<ClientCall<Q, R>> action : queued) {
                    action.accept(call);
                }
                queued.clear();
            }
        }

        private void fail(Status status) {
            Listener<R> l;
            synchronized (this) {
                if (failed != null || real != null) {
                    return;
                }
                failed = status;
                queued.clear();
                l = listener;
            }
            if (l != null) {
                closeListener(l, status);
            }
        }

        private void closeListener(Listener<R> l, Status status) {
            if (executor == null) {
                l.onClose(status, new Metadata());
            } else {
                executor.execute(() -> l.onClose(status, new Metadata()));
            }
        }

        private void run(Consumer<ClientCall<Q, R>> action) {
            ClientCall<Q, R> call;
            synchronized (this) {
                if (failed != null) {
                    return;
                }
                if (real == null) {
                    queued.add(action);
                    return;
                }
                call = real;
            }
            action.accept(call);
        }

        @Override
        public void start(Listener<R> responseListener, Metadata headers) {
            Status already;
            synchronized (this) {
                listener = responseListener;
                already = failed;
            }
            if (already != null) {
                responseListener.onClose(already, new Metadata());
                return;
            }
            run(c -> c.start(responseListener, headers));
        }

        @Override
        public void request(int numMessages) {
            run(c -> c.request(numMessages));
        }

        @Override
        public void cancel(String message, Throwable cause) {
            ClientCall<Q, R> call;
            Listener<R> l;
            synchronized (this) {
                call = real;
                l = failed == null && real == null ? listener : null;
                if (real == null && failed == null) {
                    failed = Status.CANCELLED.withDescription(message).withCause(cause);
                    queued.clear();
                }
            }
            if (call != null) {
                call.cancel(message, cause);
            } else if (l != null) {
                closeListener(l, Status.CANCELLED.withDescription(message).withCause(cause));
            }
        }

        @Override
        public void halfClose() {
            run(ClientCall::halfClose);
        }

        @Override
        public void sendMessage(Q message) {
            run(c -> c.sendMessage(message));
        }

        @Override
        public boolean isReady() {
            ClientCall<Q, R> call;
            synchronized (this) {
                call = real;
            }
            return call != null && call.isReady();
        }

        @Override
        public void setMessageCompression(boolean enabled) {
            run(c -> c.setMessageCompression(enabled));
        }
    }
}
