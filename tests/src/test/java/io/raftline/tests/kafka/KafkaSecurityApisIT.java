package io.raftline.tests.kafka;

import static io.raftline.tests.kafka.AdminCalls.eventually;
import static io.raftline.tests.kafka.AdminCalls.failure;
import static io.raftline.tests.kafka.AdminCalls.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.cli.command.dev.DevTls;
import io.raftline.tests.cluster.Cli;
import io.raftline.tests.cluster.KafkaClientSecurity;
import io.raftline.tests.cluster.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.ResourceNotFoundException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients 4.4's Admin managing SCRAM users, ACLs and client quotas through the Kafka listeners of one 3-node
 * cluster with SASL_SSL listeners and ACLs on ({@code authorizer.enabled}, nothing allowed without an ACL). The Kafka
 * Admin authenticates as SCRAM user {@code root} (a super user, added once with {@code raftline users}); what it
 * changes is checked where it acts: a user it adds authenticates and one it removes no longer does, an ACL it adds
 * lets a producer write and one it deletes stops it, a quota it sets is what the gRPC side reads.
 */
@Timeout(300)
class KafkaSecurityApisIT {

    private static final String TOPIC = "sec-orders";

    private static TestCluster cluster;
    private static Admin root;

    @TempDir
    static Path tmp;

    @BeforeAll
    static void start() throws Exception {
        cluster = TestCluster.builder().combined(3).tls().heap("-Xmx256m")
            .config("broker.listener.security.protocol", "SASL_SSL")
            .config("kafka.listener.security.protocol", "SASL_SSL")
            .config("ssl.client.auth", "requested")
            .config("super.users", "User:" + DevTls.ADMIN + ";User:" + DevTls.nodeName(1) + ";User:" + DevTls.nodeName(2)
                + ";User:" + DevTls.nodeName(3) + ";User:root")
            .start();
        Cli cli = new Cli(cluster.bootstrap());
        Path password = Files.writeString(tmp.resolve("root.password"), "root-secret\n");
        Cli.Result added = cli.run("users", "add", "--name", "root", "--password-file", password.toString(),
            "--command-config", cluster.tls().clientProperties().toString());
        assertThat(added.exitCode()).as(added.toString()).isZero();
        root = Admin.create(as("root", "root-secret"));
        root.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3))).all().get(60, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() {
        if (root != null) {
            root.close(Duration.ofSeconds(5));
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Properties as(String user, String password) {
        Properties p = KafkaClientSecurity.scram(cluster.tls().ca(), user, password);
        p.setProperty("bootstrap.servers", cluster.kafkaBootstrap());
        p.setProperty("default.api.timeout.ms", "20000");
        p.setProperty("request.timeout.ms", "10000");
        p.setProperty("max.block.ms", "10000");
        p.setProperty("delivery.timeout.ms", "15000");
        return p;
    }



    private static void addUser(Admin admin, String name, String password) throws Exception {
        get(admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(name,
            new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), password))).all());
    }

    /** Whether {@code user} authenticates (and may then list topics: no ACL is needed for that). */
    private static boolean authenticates(String user, String password) {
        try (Admin admin = Admin.create(as(user, password))) {
            admin.listTopics().names().get(20, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SaslAuthenticationException) {
                return false;
            }
            throw new AssertionError(e);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // SCRAM credentials

    @Test
    void aUserAddedThroughKafkaAdminAuthenticatesAndOneRemovedNoLongerDoes() throws Exception {
        addUser(root, "carol", "carol-secret");
        UserScramCredentialsDescription carol = get(root.describeUserScramCredentials(List.of("carol")).description("carol"));
        assertThat(carol.credentialInfos()).extracting(ScramCredentialInfo::mechanism, ScramCredentialInfo::iterations)
            .containsExactly(org.assertj.core.groups.Tuple.tuple(ScramMechanism.SCRAM_SHA_512, 8192));
        // the same user over gRPC
        assertThat(cluster.admin().describeUserScramCredentials(List.of("carol")).get(30, TimeUnit.SECONDS).toString())
            .contains("carol");
        eventually(() -> authenticates("carol", "carol-secret"), "carol authenticates");
        assertThat(authenticates("carol", "wrong")).isFalse();

        // refusals: an unknown user, and a user who is not allowed to change users
        assertThat(failure(() -> get(root.describeUserScramCredentials(List.of("nobody")).description("nobody"))))
            .isInstanceOf(ResourceNotFoundException.class);
        try (Admin carolAdmin = Admin.create(as("carol", "carol-secret"))) {
            assertThat(failure(() -> get(carolAdmin.alterUserScramCredentials(List.of(new UserScramCredentialDeletion(
                "root", ScramMechanism.SCRAM_SHA_512))).all()))).isInstanceOf(ClusterAuthorizationException.class);
        }
        assertThat(get(root.describeUserScramCredentials(List.of("root")).description("root")).credentialInfos()).hasSize(1);

        get(root.alterUserScramCredentials(List.of(new UserScramCredentialDeletion("carol", ScramMechanism.SCRAM_SHA_512))).all());
        eventually(() -> !authenticates("carol", "carol-secret"), "carol no longer authenticates");
        assertThat(failure(() -> get(root.describeUserScramCredentials(List.of("carol")).description("carol"))))
            .isInstanceOf(ResourceNotFoundException.class);
    }

    // ---------------------------------------------------------------------------------------------------------
    // ACLs

    private static boolean writes(Properties app) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(app, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(TOPIC, "k", "v")).get(20, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicAuthorizationException
                || e.getCause() instanceof org.apache.kafka.common.errors.ClusterAuthorizationException) {
                return false;
            }
            throw new AssertionError(e);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aclsCreatedThroughKafkaAdminAreEnforcedAndDeletedOnesNoLonger() throws Exception {
        addUser(root, "app", "app-secret");
        Properties app = as("app", "app-secret");
        eventually(() -> authenticates("app", "app-secret"), "app authenticates");
        assertThat(writes(app)).isFalse();

        AclBinding write = new AclBinding(new ResourcePattern(ResourceType.TOPIC, TOPIC, PatternType.LITERAL),
            new AccessControlEntry("User:app", "*", AclOperation.WRITE, AclPermissionType.ALLOW));
        get(root.createAcls(List.of(write)).all());
        AclBindingFilter apps = new AclBindingFilter(ResourcePatternFilter.ANY,
            new AccessControlEntryFilter("User:app", null, AclOperation.ANY, AclPermissionType.ANY));
        Collection<AclBinding> listed = get(root.describeAcls(apps).values());
        assertThat(listed).containsExactly(write);
        // the same ACL over gRPC
        assertThat(cluster.admin().describeAcls(io.raftline.protocol.acl.AclFilter.newBuilder().setPrincipal("User:app").build())
            .get(30, TimeUnit.SECONDS)).hasSize(1);
        eventually(() -> writes(app), "app may write " + TOPIC);

        // refusals: app may not change ACLs; an operation Raftline has no twin for (delegation tokens) is refused;
        // neither changes anything
        try (Admin appAdmin = Admin.create(app)) {
            assertThat(failure(() -> get(appAdmin.createAcls(List.of(new AclBinding(new ResourcePattern(ResourceType.TOPIC,
                "*", PatternType.LITERAL), new AccessControlEntry("User:app", "*", AclOperation.ALL, AclPermissionType.ALLOW))))
                .all()))).isInstanceOf(ClusterAuthorizationException.class);
        }
        assertThat(failure(() -> get(root.createAcls(List.of(new AclBinding(new ResourcePattern(ResourceType.TOPIC, TOPIC,
            PatternType.LITERAL), new AccessControlEntry("User:app", "*", AclOperation.CREATE_TOKENS, AclPermissionType.ALLOW))))
            .all()))).isInstanceOf(InvalidRequestException.class).hasMessageContaining("ACL operation 13 is not served");
        assertThat(get(root.describeAcls(apps).values())).containsExactly(write);

        Collection<AclBinding> deleted = get(root.deleteAcls(List.of(apps)).all());
        assertThat(deleted).containsExactly(write);
        assertThat(get(root.describeAcls(apps).values())).isEmpty();
        eventually(() -> !writes(app), "app no longer may write " + TOPIC);
    }

    /**
     * A consumer reading in an incremental fetch session (KIP-227) is checked on every fetch, not only when its session
     * was made: once its READ ACL is deleted, its next fetches are refused (TOPIC_AUTHORIZATION_FAILED) although they
     * no longer name the partition.
     */
    @Test
    void aConsumerInAFetchSessionIsRefusedOnceItsReadAclIsDeleted() throws Exception {
        addUser(root, "reader", "reader-secret");
        eventually(() -> authenticates("reader", "reader-secret"), "reader authenticates");
        AclBinding read = new AclBinding(new ResourcePattern(ResourceType.TOPIC, TOPIC, PatternType.LITERAL),
            new AccessControlEntry("User:reader", "*", AclOperation.READ, AclPermissionType.ALLOW));
        get(root.createAcls(List.of(read)).all());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(as("root", "root-secret"), new StringSerializer(),
            new StringSerializer())) {
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "before")).get(30, TimeUnit.SECONDS);
        }
        org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition(TOPIC, 0);
        try (org.apache.kafka.clients.consumer.KafkaConsumer<String, String> consumer =
                 new org.apache.kafka.clients.consumer.KafkaConsumer<>(as("reader", "reader-secret"),
                     new org.apache.kafka.common.serialization.StringDeserializer(),
                     new org.apache.kafka.common.serialization.StringDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            List<String> values = new java.util.ArrayList<>();
            eventually(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
                return values.contains("before");
            }, "reader reads " + TOPIC);
            // a few more fetches: the session is made and the fetches are incremental
            for (int i = 0; i < 3; i++) {
                consumer.poll(Duration.ofMillis(200));
            }
            get(root.deleteAcls(List.of(read.toFilter())).all());
            eventually(() -> {
                try {
                    consumer.poll(Duration.ofMillis(200));
                    return false;
                } catch (TopicAuthorizationException e) {
                    return e.unauthorizedTopics().contains(TOPIC);
                }
            }, "reader refused on " + TOPIC + " once its ACL is gone");
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Client quotas

    @Test
    void clientQuotasSetThroughKafkaAdminAreTheOnesTheClusterKeeps() throws Exception {
        ClientQuotaEntity dave = new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, "dave"));
        ClientQuotaEntity anyClient = new ClientQuotaEntity(java.util.Collections.singletonMap(ClientQuotaEntity.CLIENT_ID, null));
        get(root.alterClientQuotas(List.of(
            new ClientQuotaAlteration(dave, List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1048576.0))),
            new ClientQuotaAlteration(anyClient, List.of(new ClientQuotaAlteration.Op("request_percentage", 50.0))))).all());
        eventually(() -> {
            Map<ClientQuotaEntity, Map<String, Double>> all = get(root.describeClientQuotas(ClientQuotaFilter.all()).entities());
            return Map.of("producer_byte_rate", 1048576.0).equals(all.get(dave))
                && Map.of("request_percentage", 50.0).equals(all.get(anyClient));
        }, "both quotas described");
        assertThat(get(root.describeClientQuotas(ClientQuotaFilter.containsOnly(List.of(
            ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.USER, "dave")))).entities())).containsOnlyKeys(dave);
        // the same quota over gRPC, as raftline configs reads it (from whichever broker it asks: each has it once its
        // image has caught up with the change, so this waits as the Kafka describe above did)
        io.raftline.client.admin.ConfigResource ours = new io.raftline.client.admin.ConfigResource(
            io.raftline.client.admin.ConfigResource.Type.USER, "dave");
        eventually(() -> {
            String seen = cluster.admin().describeConfigs(List.of(ours)).all().get(30, TimeUnit.SECONDS).get(ours).toString();
            return seen.contains("producer_byte_rate") && seen.contains("1048576");
        }, "the quota read over gRPC");

        // refusals: a user-and-client-id entity, an unknown quota, and a user who may not change quotas
        ClientQuotaEntity both = new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, "dave", ClientQuotaEntity.CLIENT_ID, "x"));
        assertThat(failure(() -> get(root.alterClientQuotas(List.of(new ClientQuotaAlteration(both,
            List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1.0))))).all())))
            .isInstanceOf(InvalidRequestException.class).hasMessageContaining("one user or one client id");
        assertThat(failure(() -> get(root.alterClientQuotas(List.of(new ClientQuotaAlteration(dave,
            List.of(new ClientQuotaAlteration.Op("no_such_rate", 1.0))))).all())))
            .isInstanceOf(org.apache.kafka.common.errors.InvalidConfigurationException.class);
        addUser(root, "eve", "eve-secret");
        eventually(() -> authenticates("eve", "eve-secret"), "eve authenticates");
        try (Admin eve = Admin.create(as("eve", "eve-secret"))) {
            assertThat(failure(() -> get(eve.alterClientQuotas(List.of(new ClientQuotaAlteration(dave,
                List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1.0))))).all())))
                .isInstanceOf(ClusterAuthorizationException.class);
            assertThat(failure(() -> get(eve.describeClientQuotas(ClientQuotaFilter.all()).entities())))
                .isInstanceOf(ClusterAuthorizationException.class);
        }
        assertThat(get(root.describeClientQuotas(ClientQuotaFilter.all()).entities()).get(dave))
            .isEqualTo(Map.of("producer_byte_rate", 1048576.0));

        get(root.alterClientQuotas(List.of(new ClientQuotaAlteration(dave,
            List.of(new ClientQuotaAlteration.Op("producer_byte_rate", null))))).all());
        eventually(() -> !get(root.describeClientQuotas(ClientQuotaFilter.all()).entities()).containsKey(dave), "dave's quota removed");
    }
}
