package dev.toolbus.gateway;

import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.OutboundEvent;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;
import reactor.netty.NettyPipeline;
import reactor.netty.http.server.HttpServer;

/** The running gateway on reactor-netty. */
final class NettyGatewayServer implements GatewayServer {

    private static final Logger log = LoggerFactory.getLogger(NettyGatewayServer.class);

    final Gateway config;
    final EventCodec codec;
    final GatewayMeters meters;
    final ConnectionGuard guard;
    final AnswerBudget answers;
    final Set<WsSession> sessions = ConcurrentHashMap.newKeySet();
    private final ChannelGroup channels = new DefaultChannelGroup("toolbus-gateway", GlobalEventExecutor.INSTANCE);
    private final AtomicInteger activeTurns = new AtomicInteger();
    private final Sinks.Empty<Void> drained = Sinks.empty();
    private final AtomicBoolean closeStarted = new AtomicBoolean();
    private volatile boolean closing;
    private DisposableServer server;

    private NettyGatewayServer(Gateway config) {
        this.config = config;
        this.codec = EventCodec.create(config.maxRequestBytes, () -> "turn-" + UUID.randomUUID());
        this.meters = new GatewayMeters(config.meterRegistry, sessions::size, activeTurns::get);
        this.guard = new ConnectionGuard(config.maxConnections, config.headerTimeout, config.idleTimeout, meters);
        this.answers = new AnswerBudget(config.maxAnswerBytes, config.maxAnswerBytesTotal);
        meters.connectionsGauge(guard::open);
        meters.answersGauge(answers::held);
    }

    static GatewayServer start(Gateway config) {
        NettyGatewayServer s = new NettyGatewayServer(config);
        HttpEndpoints endpoints = new HttpEndpoints(s);
        s.server = HttpServer.create()
                .host(config.host)
                .port(config.port)
                // no .idleTimeout(...): the guard's own deadline (the next request head within idleTimeout of
                // the last answer) is the stricter one, and reactor-netty's would add and remove a handler on
                // the pipeline around every request
                .channelGroup(s.channels)
                .doOnChannelInit((observer, channel, remote) -> {
                    if (channel.pipeline().get(NettyPipeline.HttpCodec) != null) {
                        channel.pipeline().addAfter(NettyPipeline.HttpCodec, "toolbus.guard", s.guard.tracker());
                    } else {
                        channel.pipeline().addFirst("toolbus.guard", s.guard.tracker());
                    }
                })
                .handle(endpoints::handle)
                .bindNow(Duration.ofSeconds(30));
        log.info("toolbus gateway listening on {} ({})", s.baseUrl(),
                config.tokens.required() ? config.tokens.size() + " bearer token(s) accepted" : "no token: loopback only");
        return s;
    }

    @Override
    public String host() {
        return ((InetSocketAddress) server.address()).getHostString();
    }

    @Override
    public int port() {
        return server.port();
    }

    @Override
    public int openWebSockets() {
        return sessions.size();
    }

    boolean closing() {
        return closing;
    }

    /** Counts the turn as running for graceful close while it is subscribed. */
    Flux<OutboundEvent> track(Flux<OutboundEvent> events) {
        return events.doOnSubscribe(s -> turnStarted()).doFinally(s -> turnEnded());
    }

    /** A turn is subscribed: graceful close waits for it. */
    void turnStarted() {
        activeTurns.incrementAndGet();
    }

    /** A turn subscribed after {@link #turnStarted()} has ended (completed, failed or cancelled). */
    void turnEnded() {
        if (activeTurns.decrementAndGet() == 0 && closing) {
            drained.tryEmitEmpty();
        }
    }

    /** The {@code error} event that answers work arriving while the gateway shuts down. */
    static ErrorEvent shuttingDown(String streamId) {
        return new ErrorEvent(streamId, null, ErrorCode.REJECTED, "the gateway is shutting down: retry on another instance");
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.defer(() -> {
            closing = true;
            if (activeTurns.get() == 0) {
                drained.tryEmitEmpty();
            }
            return drained.asMono()
                    .timeout(config.drainTimeout, Mono.fromRunnable(() -> log.warn(
                            "gateway: {} turns still running after {}; closing anyway", activeTurns.get(),
                            config.drainTimeout)))
                    .then(Flux.fromIterable(sessions)
                            .flatMap(ws -> ws.closeForShutdown().onErrorResume(e -> Mono.empty()))
                            .then())
                    .then(Mono.defer(this::shutdown));
        });
    }

    @Override
    public void close() {
        Mono<Void> done = shutdown();
        if (!Schedulers.isInNonBlockingThread()) {
            done.block(Duration.ofSeconds(10));
        }
    }

    /** Unbinds and closes every connection; completes when the listening socket is closed. */
    private Mono<Void> shutdown() {
        closing = true;
        if (closeStarted.compareAndSet(false, true)) {
            server.dispose();
            channels.close();
            log.info("toolbus gateway on port {} closed", server.port());
        }
        return server.onDispose();
    }
}
