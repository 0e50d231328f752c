package io.raftline.broker.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.common.ManualTime;
import io.raftline.common.sasl.ScramCredential;
import io.raftline.common.sasl.ScramMechanism;
import java.security.SecureRandom;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConsoleSessionsTest {

    private static final ScramCredential ALICE = ScramCredential.fromPassword(ScramMechanism.SCRAM_SHA_512, "s3cret",
        "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.UTF_8), ScramMechanism.MIN_ITERATIONS);

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(nullValues = "null", value = {"s3cret, true", "'s3cret ', false", "S3cret, false", "'', false", "null, false"})
    void aLoginNeedsThePasswordTheCredentialWasMadeFrom(String password, boolean matches) {
        assertThat(ConsoleSessions.passwordMatches(Optional.of(ALICE), password)).isEqualTo(matches);
    }

    @Test
    void anUnknownUserNeverLogsIn() {
        assertThat(ConsoleSessions.passwordMatches(Optional.empty(), "s3cret")).isFalse();
    }

    @Test
    void aSessionLastsItsLifetimeOnTheClockAndEndsAtLogout() {
        ManualTime time = new ManualTime();
        ConsoleSessions sessions = new ConsoleSessions(time, new SecureRandom());
        String a = sessions.open("User:alice");
        String b = sessions.open("User:bob");
        assertThat(a).isNotEqualTo(b).hasSizeGreaterThanOrEqualTo(43);
        assertThat(sessions.principal(a)).contains("User:alice");
        assertThat(sessions.principal("forged")).isEmpty();
        assertThat(sessions.principal(null)).isEmpty();
        sessions.close(b);
        assertThat(sessions.principal(b)).isEmpty();
        time.advance(ConsoleSessions.TTL_MS - 1);
        assertThat(sessions.principal(a)).contains("User:alice");
        time.advance(1);
        assertThat(sessions.principal(a)).as("expired").isEmpty();
    }

    @Test
    void theOldestSessionGoesPastTheBound() {
        ConsoleSessions sessions = new ConsoleSessions(new ManualTime(), new SecureRandom());
        String first = sessions.open("User:first");
        String second = sessions.open("User:second");
        for (int i = 2; i < ConsoleSessions.MAX_SESSIONS; i++) {
            sessions.open("User:u" + i);
        }
        assertThat(sessions.principal(first)).contains("User:first");
        sessions.open("User:one-more");
        assertThat(sessions.principal(first)).isEmpty();
        assertThat(sessions.principal(second)).contains("User:second");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', nullValues = "null", value = {
        "null                                              | null",
        "raftline-console-session=abc                      | abc",
        "theme=dark; raftline-console-session=abc; other=1 | abc",
        "raftline-console-session=                         | null",
        "xraftline-console-session=abc                     | null",
        "theme=dark                                        | null",
    })
    void theSessionIdComesFromItsCookie(String header, String id) {
        assertThat(ConsoleSessions.idFromCookies(header)).isEqualTo(id);
    }

    @Test
    void theCookieIsHttpOnlyStrictAndSecureOverHttps() {
        assertThat(ConsoleSessions.setCookie("abc", true))
            .isEqualTo("raftline-console-session=abc; Path=/ui; Max-Age=3600; HttpOnly; SameSite=Strict; Secure");
        assertThat(ConsoleSessions.setCookie("abc", false))
            .isEqualTo("raftline-console-session=abc; Path=/ui; Max-Age=3600; HttpOnly; SameSite=Strict");
        assertThat(ConsoleSessions.setCookie(null, true))
            .isEqualTo("raftline-console-session=; Path=/ui; Max-Age=0; HttpOnly; SameSite=Strict; Secure");
    }
}
