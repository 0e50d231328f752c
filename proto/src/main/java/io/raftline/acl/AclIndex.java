package io.raftline.acl;

import io.raftline.protocol.acl.AclBinding;
import io.raftline.protocol.acl.AclFilter;
import io.raftline.protocol.acl.Operation;
import io.raftline.protocol.acl.PatternType;
import io.raftline.protocol.acl.Permission;
import io.raftline.protocol.acl.ResourceType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The ACL bindings of one metadata image, indexed for {@link Authorizer}: literal bindings by resource type and
 * name, prefixed bindings by resource type. Immutable; built once per image that holds bindings.
 */
public final class AclIndex {

    public static final AclIndex EMPTY = new AclIndex(List.of());

    /** Sorted by resource, then principal, host, operation and permission: for listings and snapshots. */
    public static final Comparator<AclBinding> ORDER = Comparator
        .comparingInt((AclBinding b) -> b.getResourceTypeValue())
        .thenComparing(AclBinding::getResourceName)
        .thenComparingInt(AclBinding::getPatternTypeValue)
        .thenComparing(AclBinding::getPrincipal)
        .thenComparing(AclBinding::getHost)
        .thenComparingInt(AclBinding::getOperationValue)
        .thenComparingInt(AclBinding::getPermissionValue);

    private final List<AclBinding> all;
    private final Map<ResourceType, Map<String, List<AclBinding>>> literal = new EnumMap<>(ResourceType.class);
    private final Map<ResourceType, List<AclBinding>> prefixed = new EnumMap<>(ResourceType.class);

    private AclIndex(Collection<AclBinding> bindings) {
        TreeSet<AclBinding> sorted = new TreeSet<>(ORDER);
        sorted.addAll(bindings);
        this.all = List.copyOf(sorted);
        for (AclBinding b : all) {
            if (b.getPatternType() == PatternType.PREFIXED) {
                prefixed.computeIfAbsent(b.getResourceType(), t -> new ArrayList<>()).add(b);
            } else {
                literal.computeIfAbsent(b.getResourceType(), t -> new HashMap<>())
                    .computeIfAbsent(b.getResourceName(), n -> new ArrayList<>()).add(b);
            }
        }
    }

    public static AclIndex of(Collection<AclBinding> bindings) {
        return bindings.isEmpty() ? EMPTY : new AclIndex(bindings);
    }

    /** Every binding, in {@link #ORDER}. */
    public List<AclBinding> all() {
        return all;
    }

    public boolean isEmpty() {
        return all.isEmpty();
    }

    /** The bindings whose pattern covers the resource {@code (type, name)}: its literal name, "*", or a prefix. */
    public List<AclBinding> covering(ResourceType type, String name) {
        List<AclBinding> out = new ArrayList<>();
        Map<String, List<AclBinding>> byName = literal.getOrDefault(type, Map.of());
        out.addAll(byName.getOrDefault(name, List.of()));
        if (!name.equals(Authorizer.WILDCARD)) {
            out.addAll(byName.getOrDefault(Authorizer.WILDCARD, List.of()));
        }
        for (AclBinding b : prefixed.getOrDefault(type, List.of())) {
            if (name.startsWith(b.getResourceName())) {
                out.add(b);
            }
        }
        return out;
    }

    /** The bindings a filter names (see {@link AclFilter}: unset fields match anything, set ones exactly). */
    public List<AclBinding> matching(AclFilter filter) {
        return all.stream().filter(b -> matches(filter, b)).toList();
    }

    public static boolean matches(AclFilter f, AclBinding b) {
        return (f.getPrincipal().isEmpty() || f.getPrincipal().equals(b.getPrincipal()))
            && (f.getHost().isEmpty() || f.getHost().equals(b.getHost()))
            && (f.getResourceType() == ResourceType.RESOURCE_TYPE_UNSPECIFIED || f.getResourceType() == b.getResourceType())
            && (f.getResourceName().isEmpty() || f.getResourceName().equals(b.getResourceName()))
            && (f.getPatternType() == PatternType.PATTERN_TYPE_UNSPECIFIED || f.getPatternType() == b.getPatternType())
            && (f.getOperation() == Operation.OPERATION_UNSPECIFIED || f.getOperation() == b.getOperation())
            && (f.getPermission() == Permission.PERMISSION_UNSPECIFIED || f.getPermission() == b.getPermission());
    }

    /** A set of bindings in {@link #ORDER}, for the image's own copy. */
    public static Set<AclBinding> sortedSet(Collection<AclBinding> bindings) {
        TreeSet<AclBinding> out = new TreeSet<>(ORDER);
        out.addAll(bindings);
        return out;
    }
}
