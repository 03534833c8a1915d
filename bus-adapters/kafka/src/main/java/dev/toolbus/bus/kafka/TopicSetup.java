package dev.toolbus.bus.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Creates the calls, results and dead-letter topics when they are missing (AdminClient). */
final class TopicSetup {

    private static final Logger log = LoggerFactory.getLogger(TopicSetup.class);

    private TopicSetup() {
    }

    /**
     * Creates what is missing. Returns whether the turn ledger can be used: it must have as many
     * partitions as the calls topic (a turn's record goes to its calls partition's number); when it
     * has not, idempotent turns are off for this bus (logged), rather than writing where no owner reads.
     */
    static boolean createMissing(KafkaBusConfig config) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, config.clientId() + "-admin");
        try (Admin admin = Admin.create(p)) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = new ArrayList<>();
            Optional<Short> rf = config.replicationFactor() == 0 ? Optional.empty() : Optional.of(config.replicationFactor());
            for (String topic : List.of(config.callsTopic(), config.resultsTopic(), config.deadLetterTopic())) {
                if (!existing.contains(topic)) {
                    missing.add(new NewTopic(topic, Optional.of(config.topicPartitions()), rf));
                }
            }
            if (config.turnLedgerEnabled() && !existing.contains(config.turnLedgerTopic())) {
                // as many partitions as the calls topic: a turn's record goes to its calls partition's number
                int partitions = existing.contains(config.callsTopic())
                        ? admin.describeTopics(List.of(config.callsTopic())).allTopicNames().get(30, TimeUnit.SECONDS)
                                .get(config.callsTopic()).partitions().size()
                        : config.topicPartitions();
                missing.add(new NewTopic(config.turnLedgerTopic(), Optional.of(partitions), rf).configs(java.util.Map.of(
                        "cleanup.policy", "compact,delete",
                        "retention.ms", Long.toString(config.turnLedgerWindow().toMillis()))));
            }
            boolean ledgerUsable = config.turnLedgerEnabled();
            if (ledgerUsable && existing.contains(config.turnLedgerTopic())) {
                var described = admin.describeTopics(existing.contains(config.callsTopic())
                                ? List.of(config.callsTopic(), config.turnLedgerTopic()) : List.of(config.turnLedgerTopic()))
                        .allTopicNames().get(30, TimeUnit.SECONDS);
                int calls = described.containsKey(config.callsTopic())
                        ? described.get(config.callsTopic()).partitions().size() : config.topicPartitions();
                int ledger = described.get(config.turnLedgerTopic()).partitions().size();
                if (calls != ledger) {
                    log.warn("kafka bus {}: turn ledger {} has {} partitions, calls topic {} has {}: idempotent turns are off",
                            config.clientId(), config.turnLedgerTopic(), ledger, config.callsTopic(), calls);
                    ledgerUsable = false;
                }
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
            return ledgerUsable;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot list topics on " + config.bootstrapServers() + ": " + e, e);
        }
    }
}
