package io.raftline.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.broker.config.ServerConfig;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which address a voter tells brokers and the other voters to reach its controller.listener at. */
class QuorumRoleTest {

    private static Map<String, String> voterOnHost2(String controllerListener) {
        Map<String, String> props = new HashMap<>();
        props.put("node.id", "2");
        props.put("process.roles", "controller");
        props.put("quorum.voters", "1@10.0.0.1:9093,2@10.0.0.2:9093,3@10.0.0.3:9093");
        if (controllerListener != null) {
            props.put("controller.listener", controllerListener);
        }
        return props;
    }

    @Test
    void aNamedListenerHostIsAdvertisedAsIs() {
        ServerConfig config = ServerConfig.of(voterOnHost2("10.0.1.2:9094"));
        assertThat(QuorumRole.controllerAdvertisedHost(config)).isEqualTo("10.0.1.2");
    }

    @Test
    void aWildcardListenerAdvertisesTheVotersOwnQuorumAddress() {
        // Before: the host name of the machine, which other hosts may not resolve.
        assertThat(QuorumRole.controllerAdvertisedHost(ServerConfig.of(voterOnHost2(null)))).isEqualTo("10.0.0.2");
        assertThat(QuorumRole.controllerAdvertisedHost(ServerConfig.of(voterOnHost2("0.0.0.0:9094")))).isEqualTo("10.0.0.2");
        assertThat(QuorumRole.controllerAdvertisedHost(ServerConfig.of(voterOnHost2("[::]:9094")))).isEqualTo("10.0.0.2");
    }

    @Test
    void theQuorumConfigCarriesIt() {
        assertThat(QuorumRole.quorumConfig(ServerConfig.of(voterOnHost2(null)), "c1").controllerAdvertisedHost())
            .isEqualTo("10.0.0.2");
    }
}
