package io.raftline.cli.command.verify;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Parses {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h}; a bare number is seconds. Anything else is exit 2. */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

    private static final Pattern FORMAT = Pattern.compile("(\\d+)(ms|s|m|h)?");

    @Override
    public Duration convert(String value) {
        Matcher m = FORMAT.matcher(value.strip());
        if (!m.matches()) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a duration such as 500ms, 60s, 5m or 1h");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofSeconds(n);
        };
    }
}
