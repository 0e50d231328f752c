package io.raftline.common.tls;

import io.raftline.common.config.ConfigException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

/**
 * Maps the subject of an mTLS client certificate to a principal name, with {@code ssl.principal.mapping.rules} in
 * Kafka's syntax: a comma-separated list of {@code RULE:pattern/replacement/[L|U]} and {@code DEFAULT}, tried in order
 * against the subject in RFC 2253 form ({@code CN=app,OU=ops,O=acme}); the first rule whose pattern matches the whole
 * subject gives the name ({@code $1}… refer to its groups; {@code L}/{@code U} lower- or upper-case it). A {@code /}
 * or {@code \} inside a pattern or replacement is written {@code \/} or {@code \\}.
 *
 * <p>One difference from Kafka: {@code DEFAULT} (and the default rule list, {@code DEFAULT} alone) gives the
 * subject's CN when it has one, the whole subject otherwise, so a certificate made by {@code raftline certs issue
 * --name app} is {@code User:app}. A subject no rule matches has no principal: the connection is refused.
 *
 * <p>A pure function of (rules, subject); the rules are parsed and checked once, at start-up.
 */
public final class PrincipalMapper {

    public static final String MAPPING_RULES = "ssl.principal.mapping.rules";
    public static final String USER_TYPE = "User:";

    private sealed interface Rule permits Default, Replace {
    }

    private record Default() implements Rule {
    }

    private record Replace(Pattern pattern, String replacement, char caseFlag) implements Rule {
    }

    private final List<Rule> rules;

    private PrincipalMapper(List<Rule> rules) {
        this.rules = rules;
    }

    /** The mapper of {@code DEFAULT} alone. */
    public static PrincipalMapper defaults() {
        return new PrincipalMapper(List.of(new Default()));
    }

    /** Parses {@code text}; a {@link ConfigException} naming {@value #MAPPING_RULES} and the bad rule otherwise. */
    public static PrincipalMapper parse(String text) {
        if (text == null || text.isBlank()) {
            return defaults();
        }
        List<Rule> rules = new ArrayList<>();
        int i = 0;
        int n = text.length();
        while (true) {
            while (i < n && Character.isWhitespace(text.charAt(i))) {
                i++;
            }
            if (text.startsWith("DEFAULT", i)) {
                rules.add(new Default());
                i += "DEFAULT".length();
            } else if (text.startsWith("RULE:", i)) {
                int start = i;
                i += "RULE:".length();
                StringBuilder pattern = new StringBuilder();
                i = until(text, i, pattern, start);
                StringBuilder replacement = new StringBuilder();
                i = until(text, i, replacement, start);
                char flag = 0;
                if (i < n && (text.charAt(i) == 'L' || text.charAt(i) == 'U')) {
                    flag = text.charAt(i++);
                }
                try {
                    rules.add(new Replace(Pattern.compile(pattern.toString()), replacement.toString(), flag));
                } catch (PatternSyntaxException e) {
                    throw new ConfigException(MAPPING_RULES, text, "bad pattern in rule at " + start + ": "
                        + e.getDescription());
                }
            } else {
                throw new ConfigException(MAPPING_RULES, text, "expected RULE:pattern/replacement/[L|U] or DEFAULT at "
                    + i);
            }
            while (i < n && Character.isWhitespace(text.charAt(i))) {
                i++;
            }
            if (i == n) {
                return new PrincipalMapper(List.copyOf(rules));
            }
            if (text.charAt(i) != ',') {
                throw new ConfigException(MAPPING_RULES, text, "expected ',' between rules at " + i);
            }
            i++;
        }
    }

    /** Reads up to the next unescaped '/', unescaping {@code \/} (other escapes stay, for the regex). */
    private static int until(String text, int i, StringBuilder out, int ruleStart) {
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < n) {
                char next = text.charAt(i + 1);
                if (next == '/') {
                    out.append('/');
                } else {
                    out.append(c).append(next);
                }
                i += 2;
            } else if (c == '/') {
                return i + 1;
            } else {
                out.append(c);
                i++;
            }
        }
        throw new ConfigException(MAPPING_RULES, text, "rule at " + ruleStart + " is not RULE:pattern/replacement/");
    }

    /**
     * The principal ({@code User:NAME}) of {@code subject} (an RFC 2253 distinguished name).
     *
     * @throws IllegalArgumentException when no rule matches the subject
     */
    public String principal(String subject) {
        for (Rule rule : rules) {
            if (rule instanceof Default) {
                return USER_TYPE + commonName(subject);
            }
            Replace r = (Replace) rule;
            Matcher m = r.pattern().matcher(subject);
            if (m.matches()) {
                String name = m.replaceAll(r.replacement());
                if (r.caseFlag() == 'L') {
                    name = name.toLowerCase(Locale.ROOT);
                } else if (r.caseFlag() == 'U') {
                    name = name.toUpperCase(Locale.ROOT);
                }
                return USER_TYPE + name;
            }
        }
        throw new IllegalArgumentException("no " + MAPPING_RULES + " rule applies to the certificate subject '" + subject + "'");
    }

    /** The value of the most specific CN of {@code subject}, or {@code subject} itself when it has none. */
    static String commonName(String subject) {
        try {
            List<Rdn> rdns = new LdapName(subject).getRdns();
            // LdapName lists the RDNs from the end of the string; the first CN written is the last in the list.
            for (int i = rdns.size() - 1; i >= 0; i--) {
                if (rdns.get(i).getType().equalsIgnoreCase("CN")) {
                    return String.valueOf(rdns.get(i).getValue());
                }
            }
        } catch (InvalidNameException e) {
            return subject;
        }
        return subject;
    }
}
