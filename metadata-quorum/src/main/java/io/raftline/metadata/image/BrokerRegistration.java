package io.raftline.metadata.image;

import io.raftline.protocol.metadata.BrokerState;
import io.raftline.protocol.metadata.Endpoint;
import io.raftline.protocol.metadata.RegisterBrokerRecord;
import java.util.List;
import java.util.Optional;

/**
 * One registered broker as the metadata knows it. {@code epoch} is the Raft index of its latest registration,
 * so it grows with every restart; requests carrying an older epoch come from a previous incarnation.
 */
public record BrokerRegistration(int id, String incarnationId, long epoch, List<Endpoint> endpoints, String rack,
                                 BrokerState state, List<String> logDirs) {

    public BrokerRegistration {
        endpoints = List.copyOf(endpoints);
        logDirs = List.copyOf(logDirs);
    }

    public boolean fenced() {
        return state == BrokerState.FENCED;
    }

    /** Not fenced and not shutting down: may lead partitions and count toward placement. */
    public boolean active() {
        return state == BrokerState.ACTIVE;
    }

    public Optional<String> rackOpt() {
        return rack.isEmpty() ? Optional.empty() : Optional.of(rack);
    }

    /** The endpoint of that name ("broker", "controller", ...), if advertised. */
    public Optional<Endpoint> endpoint(String name) {
        return endpoints.stream().filter(e -> e.getName().equals(name)).findFirst();
    }

    public BrokerRegistration withState(BrokerState newState) {
        return new BrokerRegistration(id, incarnationId, epoch, endpoints, rack, newState, logDirs);
    }

    RegisterBrokerRecord toRecord() {
        return RegisterBrokerRecord.newBuilder()
            .setBrokerId(id)
            .setIncarnationId(incarnationId)
            .setBrokerEpoch(epoch)
            .addAllEndpoints(endpoints)
            .setRack(rack)
            .setFenced(state != BrokerState.ACTIVE)
            .addAllLogDirs(logDirs)
            .build();
    }
}
