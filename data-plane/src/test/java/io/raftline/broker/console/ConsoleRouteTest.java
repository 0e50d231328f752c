package io.raftline.broker.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.broker.console.ConsoleRoute.Kind;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConsoleRouteTest {

    @ParameterizedTest(name = "{0} {1} -> {2} {3}")
    @CsvSource(delimiter = '|', value = {
        "GET    | /ui                                   | REDIRECT_ROOT | 200",
        "GET    | /ui/                                  | PAGE          | 200",
        "HEAD   | /ui/index.html                        | PAGE          | 200",
        "GET    | /ui/assets/console.js                 | ASSET         | 200",
        "GET    | /ui/assets/console.css                | ASSET         | 200",
        "GET    | /ui/assets/../../etc/passwd           | ERROR         | 400",
        "GET    | /ui/assets/%2e%2e                     | ERROR         | 400",
        "GET    | /ui/assets/secret.properties          | ERROR         | 404",
        "GET    | /ui/vendor/uPlot.iife.min.js          | VENDOR        | 200",
        "GET    | /ui/vendor/uPlot.d.ts                 | ERROR         | 404",
        "GET    | /ui/api/session                       | SESSION       | 200",
        "GET    | /ui/api/overview                      | OVERVIEW      | 200",
        "GET    | /ui/api/summary                       | SUMMARY       | 200",
        "GET    | /ui/api/topics                        | TOPICS        | 200",
        "GET    | /ui/api/topics/                       | TOPICS        | 200",
        "POST   | /ui/api/topics                        | ERROR         | 405",
        "POST   | /ui/api/login                         | LOGIN         | 200",
        "POST   | /ui/api/logout                        | LOGOUT        | 200",
        "GET    | /ui/api/login                         | ERROR         | 405",
        "GET    | /ui/api/metrics                       | METRICS       | 200",
        "GET    | /ui/api/records                       | RECORDS       | 200",
        "GET    | /ui/api/topics/orders                 | TOPIC         | 200",
        "GET    | /ui/api/topics/orders/                | TOPIC         | 200",
        "GET    | /ui/api/topics/or%20ders              | ERROR         | 400",
        "GET    | /ui/api/topics/orders/partitions/3    | PARTITION     | 200",
        "GET    | /ui/api/topics/orders/partitions/-1   | ERROR         | 400",
        "GET    | /ui/api/topics/orders/partitions/x    | ERROR         | 400",
        "GET    | /ui/api/topics/orders/partitions/99999999999 | ERROR  | 400",
        "GET    | /ui/api/topics/orders/replicas/3      | ERROR         | 404",
        "GET    | /ui/api/groups/my%20group             | GROUP         | 200",
        "GET    | /ui/api/nothing                       | ERROR         | 404",
        "GET    | /ui/api/%zz                           | ERROR         | 400",
        "GET    | /uix                                  | ERROR         | 404",
        "POST   | /ui/api/overview                      | ERROR         | 405",
        "DELETE | /ui/                                  | ERROR         | 405",
        "POST   | /ui/api/admin/create-topic            | CREATE_TOPIC  | 200",
        "POST   | /ui/api/admin/elect-leader            | ELECT_LEADER  | 200",
        "POST   | /ui/api/admin/reset-offsets           | RESET_OFFSETS | 200",
        "GET    | /ui/api/admin/create-topic            | ERROR         | 405",
        "POST   | /ui/api/admin/delete-topic            | ERROR         | 404",
    })
    void routes(String method, String path, Kind kind, int status) {
        ConsoleRoute r = ConsoleRoute.of(method, path);
        assertThat(r.kind()).as(r.toString()).isEqualTo(kind);
        assertThat(r.status()).as(r.toString()).isEqualTo(status);
        if (kind == Kind.ERROR) {
            assertThat(r.error()).isNotBlank();
        }
    }

    @ParameterizedTest
    @CsvSource({"/ui/api/topics/a.b_c-1/partitions/7, a.b_c-1, 7", "/ui/api/topics/x/partitions/007, x, 7"})
    void partitionParams(String path, String topic, String partition) {
        ConsoleRoute r = ConsoleRoute.of("GET", path);
        assertThat(r.params()).containsEntry("topic", topic).containsEntry("partition", partition);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"a=1&b=x%20y | b | x y", "a=1&&c= | c | ", "topic=t+1 | topic | t 1"})
    void formFields(String encoded, String name, String value) {
        assertThat(FormData.parse(encoded).optional(name)).isEqualTo(value);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "a=1&a=2      | a | given more than once",
        "a=%zz        | a | malformed parameter",
        "limit=abc    | limit | not an integer",
        "limit=0      | limit | must be from 1 to 500",
        "limit=501    | limit | must be from 1 to 500",
    })
    void badForms(String encoded, String name, String message) {
        try {
            FormData.parse(encoded).longIn(name, 1, 500, null);
            throw new AssertionError("accepted " + encoded);
        } catch (ConsoleException e) {
            assertThat(e.status()).isEqualTo(400);
            assertThat(e.getMessage()).contains(message);
        }
    }
}
