package dev.toolbus.bus.redis;

import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAutoClaimArgs;
import io.lettuce.core.XClaimArgs;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.models.stream.ClaimedMessages;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;

/**
 * The recovery side of the reader, every {@code claimInterval} on the bus's scheduler: renews the
 * leases of the entries running here ({@code XCLAIM ... JUSTID}, which resets their idle time so other
 * instances leave them alone), renews the running-turn claims, refreshes the gauges, and takes over
 * entries another consumer left idle longer than {@code claimMinIdle} ({@code XAUTOCLAIM}), passing
 * them through the reader's redelivery filters before they join its ready entries. One claim is in
 * flight at a time, and none while the reader already has a batch ready.
 */
final class ClaimLoop {

    private static final Logger log = LoggerFactory.getLogger(ClaimLoop.class);

    private final RedisStreamsBus bus;
    private final RedisStreamsConfig config;
    private final RedisAsyncCommands<String, byte[]> commands;
    private final Leases leases;
    private final StreamReader reader;
    private volatile String cursor = "0-0";
    private volatile boolean claiming;
    private Disposable schedule;

    ClaimLoop(RedisStreamsBus bus, RedisAsyncCommands<String, byte[]> commands, Leases leases, StreamReader reader) {
        this.bus = bus;
        this.config = bus.cfg();
        this.commands = commands;
        this.leases = leases;
        this.reader = reader;
    }

    void start(Scheduler scheduler) {
        long period = config.claimInterval().toMillis();
        schedule = scheduler.schedulePeriodically(this::round, period, period, TimeUnit.MILLISECONDS);
    }

    void stop() {
        if (schedule != null) {
            schedule.dispose();
        }
    }

    private void round() {
        if (reader.isStopped() && leases.isEmpty()) {
            return;
        }
        try {
            renewLeases();
            bus.renewTurnClaims();
            bus.refreshGauges();
            if (!reader.isStopped() && !claiming && reader.readyCount() < config.batchSize()) {
                claim();
            }
        } catch (RuntimeException e) {
            log.warn("redis bus {}: claim round failed: {}", config.consumer(), e.toString());
        }
    }

    /** Resets the idle time of entries still running here, so other instances leave them alone. */
    private void renewLeases() {
        Leases.Round round = leases.due(config.claimMinIdle().toNanos() / 3,
                config.claimMinIdle().toNanos() * Leases.RENEWALS);
        for (String id : round.givenUp()) {
            log.warn("redis bus {}: entry {} unsettled after {} x {}; it will be delivered again", config.consumer(),
                    id, Leases.RENEWALS, config.claimMinIdle());
        }
        List<String> due = round.renew();
        if (due.isEmpty()) {
            return;
        }
        commands.xclaim(config.callsStream(), bus.consumer(), XClaimArgs.Builder.justid(), due.toArray(String[]::new))
                .thenAccept(ok -> leases.renewed(due, round.now()));
    }

    private void claim() {
        claiming = true;
        XAutoClaimArgs<String> args = XAutoClaimArgs.Builder
                .xautoclaim(bus.consumer(), config.claimMinIdle().toMillis(), cursor)
                .count(config.claimBatch());
        commands.xautoclaim(config.callsStream(), args).toCompletableFuture()
                .thenCompose((ClaimedMessages<String, byte[]> claimed) -> {
                    cursor = claimed.getId() == null ? "0-0" : claimed.getId();
                    List<StreamMessage<String, byte[]>> msgs = claimed.getMessages();
                    if (msgs.isEmpty()) {
                        return CompletableFuture.completedFuture(List.<ReadEntry>of());
                    }
                    log.info("redis bus {}: took over {} entries idle for more than {}", config.consumer(),
                            msgs.size(), config.claimMinIdle());
                    return reader.redelivered(msgs);
                })
                .whenComplete((fresh, error) -> {
                    claiming = false;
                    if (error != null) {
                        log.warn("redis bus {}: XAUTOCLAIM failed: {}", config.consumer(), error.toString());
                        return;
                    }
                    reader.offer(fresh);
                });
    }
}
