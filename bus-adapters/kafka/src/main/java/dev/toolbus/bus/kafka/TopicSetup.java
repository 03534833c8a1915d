package dev.toolbus.bus.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the bus's topics when they are missing (AdminClient) and checks the ones that must fit the
 * calls topic: the turn ledger and the state topic have as many partitions as the calls topic (a
 * stream's records go to its calls partition's number). The state topic is compacted, with hourly
 * segments so that compaction reaches records soon after their tombstones.
 */
final class TopicSetup {

    private static final Logger log = LoggerFactory.getLogger(TopicSetup.class);

    /** The state topic's segment roll: compaction cleans closed segments only. */
    static final String STATE_SEGMENT_MS = Long.toString(3_600_000L);

    /**
     * What the bus learnt.
     *
     * @param ledgerUsable whether the turn ledger fits the calls topic (else idempotent turns are off)
     * @param partitions the calls topic's partition count (the state topic's too)
     */
    record Topics(boolean ledgerUsable, int partitions) {
    }

    private TopicSetup() {
    }

    /**
     * Creates what is missing (when the bus creates topics) and checks the rest. The turn ledger that does
     * not fit turns idempotent turns off (logged); a state topic that is missing or does not fit is an
     * error: the bus does not start rather than run calls it cannot journal.
     */
    static Topics prepare(KafkaBusConfig config) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, config.clientId() + "-admin");
        p.putAll(config.adminProperties());
        try (Admin admin = Admin.create(p)) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            int calls = existing.contains(config.callsTopic()) ? partitions(admin, config.callsTopic()) : 0;
            if (config.createTopics()) {
                create(admin, config, existing, calls > 0 ? calls : config.topicPartitions());
                calls = partitions(admin, config.callsTopic());
            }
            boolean ledgerUsable = config.turnLedgerEnabled();
            if (ledgerUsable && config.createTopics() || ledgerUsable && existing.contains(config.turnLedgerTopic())) {
                int ledger = partitions(admin, config.turnLedgerTopic());
                if (calls > 0 && calls != ledger) {
                    log.warn("kafka bus {}: turn ledger {} has {} partitions, calls topic {} has {}: idempotent turns are off",
                            config.clientId(), config.turnLedgerTopic(), ledger, config.callsTopic(), calls);
                    ledgerUsable = false;
                }
            }
            if (config.turnState()) {
                checkState(admin, config, calls);
            }
            return new Topics(ledgerUsable, calls);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot list or describe topics on " + config.bootstrapServers() + ": " + e, e);
        }
    }

    private static void create(Admin admin, KafkaBusConfig config, Set<String> existing, int callsPartitions) {
        List<NewTopic> missing = new ArrayList<>();
        Optional<Short> rf = config.replicationFactor() == 0 ? Optional.empty() : Optional.of(config.replicationFactor());
        for (String topic : List.of(config.callsTopic(), config.resultsTopic(), config.deadLetterTopic())) {
            if (!existing.contains(topic)) {
                missing.add(new NewTopic(topic, Optional.of(config.topicPartitions()), rf));
            }
        }
        if (config.turnLedgerEnabled() && !existing.contains(config.turnLedgerTopic())) {
            missing.add(new NewTopic(config.turnLedgerTopic(), Optional.of(callsPartitions), rf).configs(Map.of(
                    "cleanup.policy", "compact,delete",
                    "retention.ms", Long.toString(config.turnLedgerWindow().toMillis()))));
        }
        if (config.turnState() && !existing.contains(config.stateTopic())) {
            missing.add(new NewTopic(config.stateTopic(), Optional.of(callsPartitions), rf).configs(Map.of(
                    "cleanup.policy", "compact",
                    "segment.ms", STATE_SEGMENT_MS)));
        }
        admin.createTopics(missing).values().forEach((topic, f) -> {
            try {
                f.get(30, TimeUnit.SECONDS);
                log.info("kafka bus {}: created topic {}", config.clientId(), topic);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw new IllegalStateException("cannot create topic " + topic + ": " + e.getCause(), e.getCause());
                }
            } catch (Exception e) {
                throw new IllegalStateException("cannot create topic " + topic + ": " + e, e);
            }
        });
    }

    private static void checkState(Admin admin, KafkaBusConfig config, int calls)
            throws InterruptedException, ExecutionException, TimeoutException {
        // a topic the bus created just now may not be listed yet: partitions() below waits for it
        Set<String> now = admin.listTopics().names().get(30, TimeUnit.SECONDS);
        if (!config.createTopics() && !now.contains(config.stateTopic())) {
            throw new IllegalStateException("the turn state topic " + config.stateTopic() + " does not exist: create it "
                    + "(cleanup.policy=compact, as many partitions as " + config.callsTopic() + "), let the bus create "
                    + "topics, or turn the Kafka turn state off (turnState false)");
        }
        if (calls <= 0) {
            throw new IllegalStateException("the calls topic " + config.callsTopic() + " does not exist, so the turn state "
                    + "topic cannot be checked against it: create it or let the bus create topics");
        }
        int state = partitions(admin, config.stateTopic());
        if (state != calls) {
            throw new IllegalStateException("the turn state topic " + config.stateTopic() + " has " + state
                    + " partitions and the calls topic " + config.callsTopic() + " has " + calls + ": they must have as "
                    + "many (a stream's state lives on its calls partition's number)");
        }
        ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, config.stateTopic());
        String policy = admin.describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS).get(r).get("cleanup.policy").value();
        if (!policy.contains("compact")) {
            log.warn("kafka bus {}: the turn state topic {} has cleanup.policy={}: without compaction it only grows, "
                    + "and with deletion its records can go before they expire", config.clientId(), config.stateTopic(), policy);
        }
    }

    /** A topic's partition count (a topic created just now may take a moment to be described). */
    private static int partitions(Admin admin, String topic) {
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (true) {
            try {
                Map<String, TopicDescription> d = admin.describeTopics(List.of(topic)).allTopicNames()
                        .get(30, TimeUnit.SECONDS);
                return d.get(topic).partitions().size();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while describing " + topic, e);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) {
                    throw new IllegalStateException("cannot describe topic " + topic + ": " + e.getCause(), e);
                }
                PollLoop.sleep(100);
            } catch (TimeoutException e) {
                throw new IllegalStateException("cannot describe topic " + topic + ": " + e, e);
            }
        }
    }
}
