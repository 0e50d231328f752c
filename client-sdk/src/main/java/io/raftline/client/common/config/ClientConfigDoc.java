package io.raftline.client.common.config;

import io.raftline.client.admin.AdminClientConfig;
import io.raftline.client.consumer.ConsumerConfig;
import io.raftline.client.producer.ProducerConfig;
import io.raftline.common.config.ConfigDef;

/**
 * Renders the tables of every producer, consumer and admin-client key with its default for {@code docs/sdk.md}
 * (between its {@code config-tables} markers); a test checks the committed doc is this output.
 */
public final class ClientConfigDoc {

    private ClientConfigDoc() {
    }

    public static void main(String[] args) {
        System.out.print(render());
    }

    public static String render() {
        return table("Producer (`ProducerConfig`)", ProducerConfig.configDef())
            + table("Consumer (`ConsumerConfig`)", ConsumerConfig.configDef())
            + table("Admin (`AdminClientConfig`)", AdminClientConfig.configDef());
    }

    private static String table(String title, ConfigDef def) {
        StringBuilder out = new StringBuilder("#### ").append(title).append("\n\n| key | default | meaning |\n|---|---|---|\n");
        for (ConfigDef.Key key : def.keys().values()) {
            String value = key.required() ? "(required)" : key.defaultValue() == null ? "(none)"
                : "`" + ConfigDef.render(key.defaultValue()) + "`";
            if (value.equals("``")) {
                value = "(empty)";
            }
            out.append("| `").append(key.name()).append("` | ").append(value).append(" | ").append(key.doc()).append(" |\n");
        }
        return out.append('\n').toString();
    }
}
