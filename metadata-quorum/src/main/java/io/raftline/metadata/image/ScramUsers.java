package io.raftline.metadata.image;

import io.raftline.protocol.acl.ScramMechanismType;
import io.raftline.protocol.metadata.MetadataRecord;
import io.raftline.protocol.metadata.ScramCredentialRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** The SCRAM credentials of an image: per user name, per mechanism, the last {@link ScramCredentialRecord} kept. */
public final class ScramUsers {

    public static final ScramUsers EMPTY = new ScramUsers(new TreeMap<>());

    private final Map<String, Map<ScramMechanismType, ScramCredentialRecord>> users;

    private ScramUsers(TreeMap<String, Map<ScramMechanismType, ScramCredentialRecord>> users) {
        TreeMap<String, Map<ScramMechanismType, ScramCredentialRecord>> copy = new TreeMap<>();
        users.forEach((name, byMechanism) -> copy.put(name, Collections.unmodifiableMap(new EnumMap<>(byMechanism))));
        this.users = Collections.unmodifiableMap(copy);
    }

    public Optional<ScramCredentialRecord> get(String name, ScramMechanismType mechanism) {
        Map<ScramMechanismType, ScramCredentialRecord> m = users.get(name);
        return m == null ? Optional.empty() : Optional.ofNullable(m.get(mechanism));
    }

    public boolean has(String name, ScramMechanismType mechanism) {
        Map<ScramMechanismType, ScramCredentialRecord> m = users.get(name);
        return m != null && m.containsKey(mechanism);
    }

    /** Every user, by name, then mechanism. */
    public Map<String, Map<ScramMechanismType, ScramCredentialRecord>> all() {
        return users;
    }

    public boolean isEmpty() {
        return users.isEmpty();
    }

    List<MetadataRecord> toRecords() {
        List<MetadataRecord> out = new ArrayList<>();
        users.values().forEach(m -> m.values().forEach(r ->
            out.add(MetadataImage.wrap(MetadataRecord.newBuilder().setScramCredential(r)))));
        return out;
    }

    Builder toBuilder() {
        return new Builder(this);
    }

    /** Records applied in order onto a copy. */
    static final class Builder {
        private final TreeMap<String, Map<ScramMechanismType, ScramCredentialRecord>> users = new TreeMap<>();

        private Builder(ScramUsers base) {
            base.users.forEach((name, m) -> users.put(name, new EnumMap<>(m)));
        }

        /** Whether the record changed anything. */
        boolean apply(ScramCredentialRecord r) {
            if (r.getRemoved()) {
                Map<ScramMechanismType, ScramCredentialRecord> m = users.get(r.getName());
                if (m == null || m.remove(r.getMechanism()) == null) {
                    return false;
                }
                if (m.isEmpty()) {
                    users.remove(r.getName());
                }
                return true;
            }
            ScramCredentialRecord previous = users.computeIfAbsent(r.getName(), n -> new EnumMap<>(ScramMechanismType.class))
                .put(r.getMechanism(), r);
            return !r.equals(previous);
        }

        ScramUsers build() {
            return new ScramUsers(users);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ScramUsers s && users.equals(s.users);
    }

    @Override
    public int hashCode() {
        return users.hashCode();
    }

    @Override
    public String toString() {
        return "ScramUsers" + users.keySet();
    }
}
