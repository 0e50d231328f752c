package io.raftline.common.config;

import static io.raftline.common.config.ConfigDef.Type.BOOLEAN;
import static io.raftline.common.config.ConfigDef.Type.CLASS;
import static io.raftline.common.config.ConfigDef.Type.DOUBLE;
import static io.raftline.common.config.ConfigDef.Type.HOST_PORT;
import static io.raftline.common.config.ConfigDef.Type.INT;
import static io.raftline.common.config.ConfigDef.Type.LIST;
import static io.raftline.common.config.ConfigDef.Type.LONG;
import static io.raftline.common.config.ConfigDef.Type.STRING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.common.config.ConfigDef.UnknownKeys;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConfigDefTest {

    private static final ConfigDef DEF = new ConfigDef()
        .defineRequired("id", INT, ConfigDef.atLeast(0), "node", "an id")
        .define("flag", BOOLEAN, false, null, "node", "a flag")
        .define("name", STRING, null, null, "node", "optional, no default")
        .define("size", LONG, 10L, ConfigDef.atLeast(1), "log", "a size")
        .define("ratio", DOUBLE, 0.5, ConfigDef.betweenDouble(0, 1), "log", "a ratio")
        .define("policy", LIST, "delete", ConfigDef.all(ConfigDef.nonEmptyList(), ConfigDef.eachOf("delete", "compact")),
            "log", "a list")
        .define("mode", STRING, "Fast", ConfigDef.oneOfIgnoringCase("fast", "slow"), "a mode")
        .define("listener", HOST_PORT, "0.0.0.0:9092", "an address")
        .define("servers", LIST, "", ConfigDef.eachHostPort(), "addresses")
        .define("plugin", CLASS, null, "a class");

    private static Map<String, Object> props(Object... kv) {
        Map<String, Object> m = new HashMap<>();
        m.put("id", "1");
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void defaultsAreFilledInAndTyped() {
        Map<String, Object> v = DEF.parse(props(), UnknownKeys.REFUSE).values();
        assertThat(v).containsEntry("id", 1).containsEntry("flag", false).containsEntry("size", 10L)
            .containsEntry("ratio", 0.5).containsEntry("policy", List.of("delete")).containsEntry("mode", "Fast")
            .containsEntry("listener", new HostPort("0.0.0.0", 9092)).containsEntry("servers", List.of())
            .containsEntry("name", null).containsEntry("plugin", null);
        assertThat(v.keySet()).containsExactlyElementsOf(DEF.names());
    }

    @Test
    void textAndTypedValuesParseAlike() {
        Map<String, Object> fromText = DEF.parse(props("flag", " TRUE ", "size", "7", "ratio", "1", "policy",
            "compact, delete", "listener", "[::1]:1", "plugin", "java.lang.String"), UnknownKeys.REFUSE).values();
        Map<String, Object> typed = DEF.parse(props("flag", true, "size", 7, "ratio", 1, "policy",
            List.of("compact", "delete"), "listener", new HostPort("::1", 1), "plugin", String.class), UnknownKeys.REFUSE)
            .values();
        assertThat(fromText).isEqualTo(typed);
        assertThat(fromText.get("size")).isEqualTo(7L);
        assertThat(fromText.get("ratio")).isEqualTo(1.0);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "id|-1|invalid value '-1' for config key 'id': must be at least 0",
        "id|one|invalid value 'one' for config key 'id': expected an integer",
        "flag|yes|invalid value 'yes' for config key 'flag': expected true or false",
        "size|0|invalid value '0' for config key 'size': must be at least 1",
        "size|1.5|invalid value '1.5' for config key 'size': expected a long integer",
        "ratio|2|invalid value '2' for config key 'ratio': must be between 0.0 and 1.0",
        "policy|delete,keep|invalid value 'delete,keep' for config key 'policy': 'keep' is not one of delete, compact",
        "policy|delete,,compact|invalid value 'delete,,compact' for config key 'policy': empty item in a comma-separated list",
        "mode|medium|invalid value 'medium' for config key 'mode': must be one of fast, slow",
        "listener|localhost|invalid value 'localhost' for config key 'listener': expected HOST:PORT",
        "servers|a:1,b|invalid value 'a:1,b' for config key 'servers': 'b': expected HOST:PORT",
        "plugin|no.such.Plugin|invalid value 'no.such.Plugin' for config key 'plugin': class not found",
    })
    void aBadValueIsOneLineNamingTheKey(String key, String value, String message) {
        assertThatThrownBy(() -> DEF.parse(props(key, value), UnknownKeys.KEEP))
            .isInstanceOf(ConfigException.class).hasMessage(message);
    }

    @Test
    void aValueOfTheWrongJavaTypeIsRefused() {
        assertThatThrownBy(() -> DEF.parse(props("flag", 1), UnknownKeys.KEEP))
            .hasMessage("invalid value '1' for config key 'flag': expected true or false");
        assertThatThrownBy(() -> DEF.parse(props("name", 5), UnknownKeys.KEEP))
            .hasMessage("invalid value '5' for config key 'name': expected a string");
    }

    @Test
    void aMissingRequiredKeyIsRefused() {
        Map<String, Object> m = props();
        m.remove("id");
        assertThatThrownBy(() -> DEF.parse(m, UnknownKeys.KEEP)).hasMessage("missing required config key 'id'");
    }

    @Test
    void unknownKeysAreRefusedOrKeptAsTheCallerChooses() {
        Map<String, Object> m = props("schema.registry.url", "http://r:8081", "sizee", "3");
        assertThatThrownBy(() -> DEF.parse(m, UnknownKeys.REFUSE)).isInstanceOf(ConfigException.class)
            .hasMessageMatching("unknown config key '(schema.registry.url|sizee)'");
        ConfigDef.Parsed kept = DEF.parse(m, UnknownKeys.KEEP);
        assertThat(kept.unknown()).containsExactlyInAnyOrder("schema.registry.url", "sizee");
        assertThat(kept.values()).doesNotContainKeys("schema.registry.url", "sizee").containsEntry("size", 10L);
    }

    @Test
    void aKeyThatIsNotAStringIsRefused() {
        Map<Object, Object> m = new HashMap<>(props());
        m.put(7, "x");
        assertThatThrownBy(() -> DEF.parse(m, UnknownKeys.KEEP)).hasMessage("config keys must be strings, got 7");
    }

    @Test
    void aKeyIsDefinedOnceAndABadDefaultFailsAtDefinition() {
        assertThatThrownBy(() -> new ConfigDef().define("a", INT, 1, "x").define("a", INT, 2, "y"))
            .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> new ConfigDef().define("a", INT, "many", "x")).isInstanceOf(ConfigException.class);
    }

    @Test
    void renderWritesValuesAsAPropertiesFileHoldsThem() {
        assertThat(ConfigDef.render(null)).isEmpty();
        assertThat(ConfigDef.render(List.of("a", "b"))).isEqualTo("a,b");
        assertThat(ConfigDef.render(String.class)).isEqualTo("java.lang.String");
        assertThat(ConfigDef.render(new HostPort("::1", 9))).isEqualTo("[::1]:9");
        assertThat(ConfigDef.render(5L)).isEqualTo("5");
    }
}
