package dev.toolbus.plugins.stdio;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Starts stdio plugins: out-of-process tools speaking NDJSON on stdin and stdout (the protocol is
 * written out in {@code docs/plugins.md}).
 *
 * <p>Every plugin is started and activated when the host is created, all at once, because its tools
 * are only known from its {@code activate} answer. A plugin whose manifest says {@code optional} and
 * that cannot be started is skipped with a warning ({@link StdioPluginHost#skipped()}); any other
 * failure stops what was started and fails the load with a message naming the plugin.
 */
public final class StdioPlugins {

    private static final Logger log = LoggerFactory.getLogger(StdioPlugins.class);

    private StdioPlugins() {
    }

    /**
     * Loads every plugin folder of {@code dir}, in name order, and waits until all are activated. A
     * subfolder is a toolbus stdio plugin ({@code plugin.json}), an OpenClaw, MaiBot or ChatAI plugin run
     * by its host ({@link PluginKind}), or ignored.
     *
     * @param dir the plugins folder
     * @return the running host; close it to stop the plugins
     * @throws StdioPluginException when the folder cannot be read, a manifest is invalid, two plugins
     *     share an id, or a required plugin fails to start
     */
    public static StdioPluginHost load(Path dir) {
        return start(dir).block();
    }

    /**
     * Like {@link #load(Path)}, with the configuration the application gives the plugins (each gets
     * its own in {@code activate}, and a {@code configure} when it changes).
     */
    public static StdioPluginHost load(Path dir, PluginConfigs configs) {
        return start(dir, configs).block();
    }

    /** Like {@link #load(Path)}, without blocking: reading the folder and starting run on subscription. */
    public static Mono<StdioPluginHost> start(Path dir) {
        return start(dir, PluginConfigs.none());
    }

    /** Like {@link #load(Path, PluginConfigs)}, without blocking. */
    public static Mono<StdioPluginHost> start(Path dir, PluginConfigs configs) {
        Objects.requireNonNull(configs, "configs");
        return Mono.fromCallable(() -> manifests(dir))
                .subscribeOn(Schedulers.boundedElastic())
                .flatMap(found -> start(found.manifests(), found.skipped(), configs));
    }

    /**
     * Starts plugins from manifests built in code.
     *
     * @param manifests the plugins, in order
     * @return the running host
     */
    public static Mono<StdioPluginHost> start(List<PluginManifest> manifests) {
        return start(manifests, Map.of(), PluginConfigs.none());
    }

    /** Starts plugins from manifests built in code, with the application's configuration for them. */
    public static Mono<StdioPluginHost> start(List<PluginManifest> manifests, PluginConfigs configs) {
        return start(manifests, Map.of(), Objects.requireNonNull(configs, "configs"));
    }

    private static Mono<StdioPluginHost> start(List<PluginManifest> manifests, Map<String, String> skippedBefore,
                                               PluginConfigs configs) {
        return Mono.defer(() -> {
            Set<String> ids = new HashSet<>();
            for (PluginManifest m : manifests) {
                if (!ids.add(m.id())) {
                    return Mono.error(new StdioPluginException("two plugins have the id '" + m.id() + "'"));
                }
            }
            List<PluginSupervisor> all = manifests.stream().map(m -> new PluginSupervisor(m, configs)).toList();
            Map<String, String> skipped = new LinkedHashMap<>(skippedBefore);
            return Flux.fromIterable(all)
                    .flatMapSequential(s -> s.activate()
                            .map(tools -> Optional.of(s))
                            .onErrorResume(e -> {
                                if (!s.manifest().optional()) {
                                    return Mono.error(new StdioPluginException("required plugin '" + s.manifest().id()
                                            + "' failed to start: " + e.getMessage(), e));
                                }
                                log.warn("optional plugin {} is skipped: {}", s.manifest().id(), e.getMessage());
                                synchronized (skipped) {
                                    skipped.put(s.manifest().id(), String.valueOf(e.getMessage()));
                                }
                                return s.closeGracefully().thenReturn(Optional.<PluginSupervisor>empty());
                            }))
                    .filter(Optional::isPresent)
                    .map(Optional::get)
                    .collectList()
                    .map(started -> new StdioPluginHost(started, skipped))
                    .onErrorResume(e -> Flux.fromIterable(all)
                            .flatMap(PluginSupervisor::closeGracefully)
                            .then(Mono.error(e)));
        });
    }

    record Found(List<PluginManifest> manifests, Map<String, String> skipped) {
    }

    static Found manifests(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw new StdioPluginException("plugins folder " + dir.toAbsolutePath() + " does not exist or is not a folder");
        }
        List<Path> folders;
        try (Stream<Path> s = Files.list(dir)) {
            folders = s.filter(Files::isDirectory).sorted().toList();
        } catch (IOException e) {
            throw new StdioPluginException("cannot list plugins folder " + dir.toAbsolutePath() + ": " + e, e);
        }
        List<PluginManifest> manifests = new ArrayList<>();
        Map<String, String> skipped = new LinkedHashMap<>();
        for (Path folder : folders) {
            try {
                Optional<PluginManifest> found = PluginKinds.manifest(folder);
                if (found.isEmpty()) {
                    log.debug("{} holds no plugin of a known kind", folder);
                    continue;
                }
                manifests.add(found.get());
            } catch (IllegalArgumentException e) {
                if (!PluginManifest.saysOptional(folder)) {
                    throw new StdioPluginException("invalid plugin manifest: " + e.getMessage(), e);
                }
                log.warn("optional plugin in {} is skipped: {}", folder, e.getMessage());
                skipped.put(String.valueOf(folder.getFileName()), e.getMessage());
            }
        }
        log.info("found {} stdio plugins in {}", manifests.size(), dir);
        return new Found(manifests, skipped);
    }
}
