package io.raftline.common.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.common.config.ConfigException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** ssl.principal.mapping.rules: (rules, subject) to principal, and the rules that do not parse. */
class PrincipalMapperTest {

    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource(delimiter = '|', value = {
        "''                                              | CN=app,OU=ops,O=acme      | User:app",
        "DEFAULT                                         | CN=app,OU=ops,O=acme      | User:app",
        "DEFAULT                                         | OU=ops,O=acme             | User:OU=ops,O=acme",
        "DEFAULT                                         | CN=a\\,b,O=x              | User:a,b",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/           | CN=svc,OU=ServiceUsers,O=x | User:svc",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/, DEFAULT  | CN=bob,OU=People,O=x      | User:bob",
        "RULE:^CN=(.*?),OU=(.*?),O=.*$/$1@$2/L           | CN=Bob,OU=Ops,O=x         | User:bob@ops",
        "RULE:^CN=(.*?),OU=(.*?),O=.*$/$1@$2/U           | CN=Bob,OU=Ops,O=x         | User:BOB@OPS",
        "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L,DEFAULT | cn=Node1,o=x             | User:node1",
        "RULE:^CN=(.*)$/ops\\/$1/                        | CN=a                      | User:ops/a",
        "RULE:^O=x$/anon/,DEFAULT                        | CN=first,O=x              | User:first",
    })
    void mapsSubjects(String rules, String subject, String principal) {
        assertThat(PrincipalMapper.parse(rules).principal(subject)).isEqualTo(principal);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "RULE:^CN=(.*$/$1/      | bad pattern",
        "RULE:^CN=(.*)$         | is not RULE:pattern/replacement/",
        "RULE:^CN=(.*)$/$1      | is not RULE:pattern/replacement/",
        "CN=app                 | expected RULE:pattern/replacement/[L|U] or DEFAULT at 0",
        "DEFAULT DEFAULT        | expected ',' between rules at 8",
        "RULE:a/b/X             | expected ',' between rules at 9",
    })
    void badRulesAreOneErrorNamingTheKey(String rules, String why) {
        assertThatThrownBy(() -> PrincipalMapper.parse(rules)).isInstanceOf(ConfigException.class)
            .hasMessageContaining("ssl.principal.mapping.rules").hasMessageContaining(why);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"RULE:^CN=svc$/svc/ | CN=other"})
    void aSubjectNoRuleMatchesHasNoPrincipal(String rules, String subject) {
        assertThatThrownBy(() -> PrincipalMapper.parse(rules).principal(subject))
            .hasMessage("no ssl.principal.mapping.rules rule applies to the certificate subject 'CN=other'");
    }
}
