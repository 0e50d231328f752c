package io.raftline.client.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.client.admin.AdminClientConfig;
import io.raftline.client.common.serialization.StringSerializer;
import io.raftline.client.consumer.ConsumerConfig;
import io.raftline.client.errors.ConfigException;
import io.raftline.client.producer.ProducerConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ConfigTest {

    private static Map<String, Object> base() {
        Map<String, Object> m = new HashMap<>();
        m.put("bootstrap.servers", "localhost:9092");
        return m;
    }

    @Test
    void producerDefaultsAreKafka4s() {
        ProducerConfig c = new ProducerConfig(base());
        assertThat(c.acks()).isEqualTo((short) -1);
        assertThat(c.getLong("linger.ms")).isEqualTo(5);
        assertThat(c.getInt("batch.size")).isEqualTo(16384);
        assertThat(c.idempotenceEnabled()).isTrue();
        assertThat(c.getLong("buffer.memory")).isEqualTo(33_554_432L);
        assertThat(c.getInt("max.in.flight.requests.per.connection")).isEqualTo(5);
        assertThat(c.getInt("retries")).isEqualTo(Integer.MAX_VALUE);
        assertThat(c.getInt("delivery.timeout.ms")).isEqualTo(120_000);
        assertThat(c.getInt("request.timeout.ms")).isEqualTo(30_000);
        assertThat(c.getLong("max.block.ms")).isEqualTo(60_000);
        assertThat(c.getString("compression.type")).isEqualTo("none");
        assertThat(c.getString("client.id")).isEmpty();
    }

    @Test
    void consumerDefaultsAreKafka4s() {
        ConsumerConfig c = new ConsumerConfig(base());
        assertThat(c.getString("auto.offset.reset")).isEqualTo("latest");
        assertThat(c.getInt("max.poll.records")).isEqualTo(500);
        assertThat(c.getInt("fetch.min.bytes")).isEqualTo(1);
        assertThat(c.getInt("fetch.max.wait.ms")).isEqualTo(500);
        assertThat(c.getInt("max.partition.fetch.bytes")).isEqualTo(1_048_576);
        assertThat(c.getInt("fetch.max.bytes")).isEqualTo(52_428_800);
        assertThat(c.getBoolean("check.crcs")).isTrue();
        assertThat(c.getInt("default.api.timeout.ms")).isEqualTo(60_000);
        assertThat(c.getString("group.id")).isNull();
    }

    @Test
    void unknownKeysAreKeptForPluginsAsKafkaClientsDo() {
        Map<String, Object> m = base();
        m.put("schema.registry.url", "http://registry:8081");
        m.put("linger.msec", "5");
        ProducerConfig c = new ProducerConfig(m);
        assertThat(c.unused()).containsExactlyInAnyOrder("schema.registry.url", "linger.msec");
        assertThat(c.originals()).containsEntry("schema.registry.url", "http://registry:8081");
        assertThat(c.getLong("linger.ms")).isEqualTo(5);
        assertThat(new ConsumerConfig(m).unused()).contains("schema.registry.url");
        assertThat(new AdminClientConfig(m).unused()).contains("schema.registry.url");
        assertThat(new ProducerConfig(base()).unused()).isEmpty();
    }

    @Test
    void aKnownKeyWithABadValueStillFailsWithTheSdksException() {
        Map<String, Object> m = base();
        m.put("schema.registry.url", "http://registry:8081");
        m.put("linger.ms", "soon");
        assertThatThrownBy(() -> new ProducerConfig(m)).isInstanceOf(ConfigException.class)
            .hasMessage("invalid value 'soon' for config key 'linger.ms': expected a long integer");
    }

    @Test
    void badValuesFailNamingTheKey() {
        Map<String, Object> m = base();
        m.put("batch.size", "big");
        assertThatThrownBy(() -> new ProducerConfig(m)).isInstanceOf(ConfigException.class).hasMessageContaining("batch.size");
        Map<String, Object> acks = base();
        acks.put("acks", "2");
        assertThatThrownBy(() -> new ProducerConfig(acks)).hasMessageContaining("acks");
        Map<String, Object> reset = base();
        reset.put("auto.offset.reset", "smallest");
        assertThatThrownBy(() -> new ConsumerConfig(reset)).hasMessageContaining("auto.offset.reset");
        Map<String, Object> neg = base();
        neg.put("max.poll.records", 0);
        assertThatThrownBy(() -> new ConsumerConfig(neg)).hasMessageContaining("max.poll.records");
        Map<String, Object> cls = base();
        cls.put("key.serializer", "no.such.Serializer");
        assertThatThrownBy(() -> new ProducerConfig(cls)).hasMessageContaining("key.serializer").hasMessageContaining("not found");
    }

    @Test
    void bootstrapIsRequiredAndChecked() {
        assertThatThrownBy(() -> new AdminClientConfig(Map.of())).isInstanceOf(ConfigException.class)
            .hasMessageContaining("bootstrap.servers");
        assertThatThrownBy(() -> new AdminClientConfig(Map.of("bootstrap.servers", "localhost"))).hasMessageContaining("expected HOST:PORT");
        assertThatThrownBy(() -> new AdminClientConfig(Map.of("bootstrap.servers", "h:99999"))).hasMessageContaining("range");
        AdminClientConfig ok = new AdminClientConfig(Map.of("bootstrap.servers", "a:1, b:2"));
        assertThat(ok.getList("bootstrap.servers")).isEqualTo(List.of("a:1", "b:2"));
    }

    @Test
    void idempotenceFollowsKafkasRules() {
        Map<String, Object> acks1 = base();
        acks1.put("acks", "1");
        assertThat(new ProducerConfig(acks1).idempotenceEnabled()).isFalse();
        acks1.put("enable.idempotence", "true");
        assertThatThrownBy(() -> new ProducerConfig(acks1)).hasMessageContaining("acks");
        Map<String, Object> delivery = base();
        delivery.put("delivery.timeout.ms", 1000);
        assertThatThrownBy(() -> new ProducerConfig(delivery)).hasMessageContaining("delivery.timeout.ms");
    }

    @Test
    void propertiesAndTypedValuesBothWork() {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", "localhost:9092");
        p.put("key.serializer", StringSerializer.class);
        p.setProperty("linger.ms", " 20 ");
        ProducerConfig c = new ProducerConfig(p);
        assertThat(c.getClass("key.serializer")).isEqualTo(StringSerializer.class);
        assertThat(c.getLong("linger.ms")).isEqualTo(20);
    }
}
