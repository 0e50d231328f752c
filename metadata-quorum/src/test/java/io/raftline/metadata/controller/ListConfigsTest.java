package io.raftline.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.protocol.controller.AlterConfigsRequest;
import io.raftline.protocol.metadata.ConfigResourceType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ListConfigsTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', nullValues = "null", value = {
        // current | kind | items | result
        "delete         | APPEND   | compact         | delete,compact",
        "delete,compact | APPEND   | compact         | delete,compact",
        "null           | APPEND   | 0:1,0:2         | 0:1,0:2",
        "''             | APPEND   | ' 0:1 , ,0:1'   | 0:1",
        "0:1,0:2        | APPEND   | 0:3,0:1,0:4     | 0:1,0:2,0:3,0:4",
        "delete,compact | SUBTRACT | delete          | compact",
        "delete,compact | SUBTRACT | delete,compact  | ''",
        "0:1,0:2        | SUBTRACT | 0:9             | 0:1,0:2",
        "null           | SUBTRACT | 0:1             | ''",
    })
    void appendAddsWhatIsMissingAndSubtractRemovesWhatIsThere(String current, AlterConfigsRequest.Op.Kind kind,
                                                              String items, String result) {
        assertThat(ListConfigs.apply(current, kind, items)).isEqualTo(result);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "TOPIC  | cleanup.policy                         | true",
        "TOPIC  | leader.replication.throttled.replicas  | true",
        "TOPIC  | follower.replication.throttled.replicas| true",
        "TOPIC  | retention.ms                           | false",
        "TOPIC  | compression.type                       | false",
        "TOPIC  | no.such.config                         | false",
        "BROKER | log.cleanup.policy                     | true",
        "BROKER | log.retention.ms                       | false",
        "BROKER | leader.replication.throttled.rate      | false",
        "BROKER | cleanup.policy                         | false",
        "USER   | producer_byte_rate                     | false",
    })
    void listConfigsAreTheListTypedTopicConfigsAndTheirBrokerDefaults(ConfigResourceType type, String name, boolean list) {
        assertThat(ListConfigs.isList(type, name)).isEqualTo(list);
    }
}
