package dev.toolbus.bus.kafka;

import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** The bus's producers: idempotent (at least once) or transactional (exactly once). */
final class Producers {

    /** The transaction timeout the bus sets ({@code transaction.timeout.ms}), unless a producer property overrides it. */
    static final long TRANSACTION_TIMEOUT_MS = 10_000;

    private Producers() {
    }

    /** The transactional id of this instance's producer: {@code <clientId>-tx}. */
    static String transactionalId(KafkaBusConfig config) {
        return config.clientId() + "-tx";
    }

    /** The transactional producer's {@code transaction.timeout.ms}: the producer property, else {@link #TRANSACTION_TIMEOUT_MS}. */
    static long transactionTimeoutMs(KafkaBusConfig config) {
        String set = config.producerProperties().get(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG);
        try {
            return set == null ? TRANSACTION_TIMEOUT_MS : Long.parseLong(set.strip());
        } catch (NumberFormatException e) {
            return TRANSACTION_TIMEOUT_MS; // kafka-clients refuses it when the producer is made
        }
    }

    static KafkaProducer<String, byte[]> idempotent(KafkaBusConfig config) {
        return new KafkaProducer<>(properties(config, null), new StringSerializer(), new ByteArraySerializer());
    }

    /** A transactional producer, {@code initTransactions} done (blocks; fences an older producer of the same id). */
    static KafkaProducer<String, byte[]> transactional(KafkaBusConfig config) {
        KafkaProducer<String, byte[]> p = new KafkaProducer<>(properties(config, transactionalId(config)),
                new StringSerializer(), new ByteArraySerializer());
        try {
            p.initTransactions();
        } catch (RuntimeException e) {
            p.close(java.time.Duration.ZERO);
            throw e;
        }
        return p;
    }

    /** Fetches the output topics' metadata so that the first sends do not wait for it. */
    static void warmUp(KafkaProducer<String, byte[]> producer, KafkaBusConfig config) {
        try {
            producer.partitionsFor(config.resultsTopic());
            producer.partitionsFor(config.deadLetterTopic());
        } catch (KafkaException e) {
            // the first send fetches it
        }
    }

    private static Properties properties(KafkaBusConfig config, String transactionalId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        p.put(ProducerConfig.CLIENT_ID_CONFIG, config.clientId() + (transactionalId != null ? "-txproducer" : "-producer"));
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "2");
        if (transactionalId != null) {
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
            // a killed instance's open transaction blocks read_committed consumers of its partitions this long
            p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Long.toString(TRANSACTION_TIMEOUT_MS));
        }
        p.putAll(config.producerProperties());
        return p;
    }
}
