package io.raftline.broker.kafka;

import com.google.protobuf.ByteString;
import io.raftline.broker.rpc.BrokerRpcService;
import io.raftline.broker.rpc.ServedImage;
import io.raftline.metadata.image.ConfigResource;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.acl.AclBinding;
import io.raftline.protocol.acl.AclFilter;
import io.raftline.protocol.acl.ScramMechanismType;
import io.raftline.protocol.broker.DescribeAclsRequest;
import io.raftline.protocol.broker.DescribeUserScramCredentialsRequest;
import io.raftline.protocol.broker.DescribeUserScramCredentialsResponse;
import io.raftline.protocol.controller.AlterConfigsRequest;
import io.raftline.protocol.controller.AlterUserScramCredentialsRequest;
import io.raftline.protocol.controller.CreateAclsRequest;
import io.raftline.protocol.controller.DeleteAclsRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.DeleteAclsRequestData;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ACLs, SCRAM credentials and client quotas on the Kafka listener, over what {@code raftline acls}, {@code users} and
 * {@code configs} use: the broker's gRPC service (changes forwarded to the controller, listings from this broker's
 * image), which authorizes each call with the connection's principal (cluster ALTER to change ACLs and credentials,
 * cluster DESCRIBE to list them, cluster ALTER_CONFIGS for quotas). DescribeClientQuotas reads the image here and is
 * authorized by {@link KafkaAuthorization}.
 */
final class KafkaSecurityApis {

    private final BrokerRpcService service;
    private final ServedImage served;

    KafkaSecurityApis(BrokerRpcService service, ServedImage served) {
        this.service = service;
        this.served = served;
    }

    private static CompletableFuture<ApiMessage> now(ApiMessage m) {
        return CompletableFuture.completedFuture(m);
    }

    private static ApiMessage refused(KafkaRequest request, Errors error, String message) {
        return request.body().getErrorResponse(0, error.exception(message)).data();
    }

    // ---------------------------------------------------------------------------------------------------------
    // ACLs

    CompletableFuture<ApiMessage> describeAcls(KafkaRequest request) {
        DescribeAclsRequestData req = (DescribeAclsRequestData) request.body().data();
        AclFilter filter;
        try {
            filter = KafkaAclTranslation.filter(req.resourceTypeFilter(), req.resourceNameFilter(), req.patternTypeFilter(),
                req.principalFilter(), req.hostFilter(), req.operation(), req.permissionType());
        } catch (KafkaRefusal r) {
            return now(refused(request, Errors.INVALID_REQUEST, r.getMessage()));
        }
        return Unary.call(service::describeAcls, DescribeAclsRequest.newBuilder().setFilter(filter).build()).thenApply(r -> {
            if (r.getError().getCode() != ErrorCode.NONE) {
                return refused(request, KafkaErrors.of(r.getError().getCode()), KafkaApis.message(r.getError()));
            }
            DescribeAclsResponseData out = new DescribeAclsResponseData().setErrorCode(Errors.NONE.code());
            Map<List<Object>, DescribeAclsResponseData.DescribeAclsResource> byResource = new LinkedHashMap<>();
            for (AclBinding b : r.getBindingsList()) {
                byResource.computeIfAbsent(List.of(b.getResourceType(), b.getResourceName(), b.getPatternType()),
                    k -> new DescribeAclsResponseData.DescribeAclsResource()
                        .setResourceType(KafkaAclTranslation.resourceType(b.getResourceType()))
                        .setResourceName(b.getResourceName())
                        .setPatternType(KafkaAclTranslation.patternType(b.getPatternType())))
                    .acls().add(new DescribeAclsResponseData.AclDescription().setPrincipal(b.getPrincipal())
                        .setHost(b.getHost()).setOperation(KafkaAclTranslation.operation(b.getOperation()))
                        .setPermissionType(KafkaAclTranslation.permission(b.getPermission())));
            }
            out.resources().addAll(byResource.values());
            return out;
        });
    }

    /** Every ACL Kafka names is created, or none: one controller call (a bad one refuses the whole request). */
    CompletableFuture<ApiMessage> createAcls(KafkaRequest request) {
        CreateAclsRequestData req = (CreateAclsRequestData) request.body().data();
        CreateAclsRequest.Builder ours = CreateAclsRequest.newBuilder();
        try {
            for (CreateAclsRequestData.AclCreation c : req.creations()) {
                ours.addBindings(KafkaAclTranslation.binding(c.resourceType(), c.resourceName(), c.resourcePatternType(),
                    c.principal(), c.host(), c.operation(), c.permissionType()));
            }
        } catch (KafkaRefusal r) {
            return now(refused(request, Errors.INVALID_REQUEST, r.getMessage()));
        }
        return Unary.call(service::createAcls, ours.build()).thenApply(r -> {
            CreateAclsResponseData out = new CreateAclsResponseData();
            req.creations().forEach(c -> out.results().add(new CreateAclsResponseData.AclCreationResult()
                .setErrorCode(KafkaApis.code(r.getError())).setErrorMessage(KafkaApis.message(r.getError()))));
            return out;
        });
    }

    /** One controller call for every filter; each removed ACL is answered under each filter it matches. */
    CompletableFuture<ApiMessage> deleteAcls(KafkaRequest request) {
        DeleteAclsRequestData req = (DeleteAclsRequestData) request.body().data();
        List<AclFilter> filters = new ArrayList<>();
        try {
            for (DeleteAclsRequestData.DeleteAclsFilter f : req.filters()) {
                filters.add(KafkaAclTranslation.filter(f.resourceTypeFilter(), f.resourceNameFilter(), f.patternTypeFilter(),
                    f.principalFilter(), f.hostFilter(), f.operation(), f.permissionType()));
            }
        } catch (KafkaRefusal r) {
            return now(refused(request, Errors.INVALID_REQUEST, r.getMessage()));
        }
        return Unary.call(service::deleteAcls, DeleteAclsRequest.newBuilder().addAllFilters(filters).build()).thenApply(r -> {
            DeleteAclsResponseData out = new DeleteAclsResponseData();
            for (AclFilter f : filters) {
                DeleteAclsResponseData.DeleteAclsFilterResult result = new DeleteAclsResponseData.DeleteAclsFilterResult()
                    .setErrorCode(KafkaApis.code(r.getError())).setErrorMessage(KafkaApis.message(r.getError()));
                r.getRemovedList().stream().filter(b -> io.raftline.acl.AclIndex.matches(f, b)).forEach(b ->
                    result.matchingAcls().add(new DeleteAclsResponseData.DeleteAclsMatchingAcl()
                        .setErrorCode(Errors.NONE.code())
                        .setResourceType(KafkaAclTranslation.resourceType(b.getResourceType()))
                        .setResourceName(b.getResourceName())
                        .setPatternType(KafkaAclTranslation.patternType(b.getPatternType()))
                        .setPrincipal(b.getPrincipal()).setHost(b.getHost())
                        .setOperation(KafkaAclTranslation.operation(b.getOperation()))
                        .setPermissionType(KafkaAclTranslation.permission(b.getPermission()))));
                out.filterResults().add(result);
            }
            return out;
        });
    }

    // ---------------------------------------------------------------------------------------------------------
    // SCRAM credentials

    private static ScramMechanismType mechanism(byte kafka) throws KafkaRefusal {
        return switch (kafka) {
            case 1 -> ScramMechanismType.SCRAM_SHA_256;
            case 2 -> ScramMechanismType.SCRAM_SHA_512;
            default -> throw new KafkaRefusal("unknown SCRAM mechanism " + kafka + ": 1 (SCRAM-SHA-256) or 2 (SCRAM-SHA-512)");
        };
    }

    CompletableFuture<ApiMessage> describeUserScramCredentials(KafkaRequest request) {
        DescribeUserScramCredentialsRequestData req = (DescribeUserScramCredentialsRequestData) request.body().data();
        List<String> names = req.users() == null ? List.of()
            : req.users().stream().map(DescribeUserScramCredentialsRequestData.UserName::name).toList();
        return Unary.call(service::describeUserScramCredentials,
            DescribeUserScramCredentialsRequest.newBuilder().addAllNames(names).build()).thenApply(r -> {
                DescribeUserScramCredentialsResponseData out = new DescribeUserScramCredentialsResponseData()
                    .setErrorCode(KafkaApis.code(r.getError())).setErrorMessage(KafkaApis.message(r.getError()));
                if (r.getError().getCode() != ErrorCode.NONE) {
                    return out;
                }
                Map<String, DescribeUserScramCredentialsResponseData.DescribeUserScramCredentialsResult> byUser =
                    new LinkedHashMap<>();
                Map<String, Integer> asked = new HashMap<>();
                names.forEach(n -> asked.merge(n, 1, Integer::sum));
                names.forEach(n -> byUser.put(n, userResult(n, asked.get(n) > 1 ? Errors.DUPLICATE_RESOURCE : Errors.RESOURCE_NOT_FOUND,
                    asked.get(n) > 1 ? "user '" + n + "' is named twice" : "user '" + n + "' has no SCRAM credential")));
                for (DescribeUserScramCredentialsResponse.Credential c : r.getCredentialsList()) {
                    DescribeUserScramCredentialsResponseData.DescribeUserScramCredentialsResult u = byUser.get(c.getName());
                    if (u == null) {
                        u = userResult(c.getName(), Errors.NONE, null);
                        byUser.put(c.getName(), u);
                    } else if (u.errorCode() == Errors.DUPLICATE_RESOURCE.code()) {
                        continue;
                    }
                    u.setErrorCode(Errors.NONE.code()).setErrorMessage(null).credentialInfos().add(
                        new DescribeUserScramCredentialsResponseData.CredentialInfo()
                            .setMechanism((byte) c.getMechanism().getNumber()).setIterations(c.getIterations()));
                }
                out.results().addAll(byUser.values());
                return out;
            });
    }

    private static DescribeUserScramCredentialsResponseData.DescribeUserScramCredentialsResult userResult(String user,
                                                                                                           Errors error,
                                                                                                           String message) {
        return new DescribeUserScramCredentialsResponseData.DescribeUserScramCredentialsResult().setUser(user)
            .setErrorCode(error.code()).setErrorMessage(message);
    }

    /** One controller call per user, so each user's changes are applied all or none and answered on their own. */
    CompletableFuture<ApiMessage> alterUserScramCredentials(KafkaRequest request) {
        AlterUserScramCredentialsRequestData req = (AlterUserScramCredentialsRequestData) request.body().data();
        Map<String, AlterUserScramCredentialsRequest.Builder> byUser = new LinkedHashMap<>();
        Map<String, String> refusals = new HashMap<>();
        for (AlterUserScramCredentialsRequestData.ScramCredentialDeletion d : req.deletions()) {
            try {
                byUser.computeIfAbsent(d.name(), n -> AlterUserScramCredentialsRequest.newBuilder()).addDeletions(
                    AlterUserScramCredentialsRequest.Deletion.newBuilder().setName(d.name()).setMechanism(mechanism(d.mechanism())));
            } catch (KafkaRefusal r) {
                refusals.put(d.name(), r.getMessage());
            }
        }
        for (AlterUserScramCredentialsRequestData.ScramCredentialUpsertion u : req.upsertions()) {
            try {
                byUser.computeIfAbsent(u.name(), n -> AlterUserScramCredentialsRequest.newBuilder()).addUpsertions(
                    AlterUserScramCredentialsRequest.Upsertion.newBuilder().setName(u.name()).setMechanism(mechanism(u.mechanism()))
                        .setIterations(u.iterations()).setSalt(ByteString.copyFrom(u.salt()))
                        .setSaltedPassword(ByteString.copyFrom(u.saltedPassword())));
            } catch (KafkaRefusal r) {
                refusals.put(u.name(), r.getMessage());
            }
        }
        List<CompletableFuture<AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult>> results = new ArrayList<>();
        byUser.forEach((user, ours) -> {
            AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult result =
                new AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult().setUser(user);
            if (user.isEmpty() || refusals.containsKey(user)) {
                results.add(CompletableFuture.completedFuture(result.setErrorCode(Errors.UNACCEPTABLE_CREDENTIAL.code())
                    .setErrorMessage(user.isEmpty() ? "a user has a name" : refusals.get(user))));
                return;
            }
            results.add(Unary.call(service::alterUserScramCredentials, ours.build()).thenApply(r ->
                result.setErrorCode(KafkaApis.code(r.getError())).setErrorMessage(KafkaApis.message(r.getError()))));
        });
        refusals.keySet().stream().filter(u -> !byUser.containsKey(u)).forEach(u -> results.add(CompletableFuture.completedFuture(
            new AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult().setUser(u)
                .setErrorCode(Errors.UNACCEPTABLE_CREDENTIAL.code()).setErrorMessage(refusals.get(u)))));
        return CompletableFuture.allOf(results.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
            AlterUserScramCredentialsResponseData out = new AlterUserScramCredentialsResponseData();
            results.forEach(f -> out.results().add(f.join()));
            return out;
        });
    }

    // ---------------------------------------------------------------------------------------------------------
    // Client quotas: Raftline keeps them per user or per client id (not per user and client id together)

    CompletableFuture<ApiMessage> describeClientQuotas(KafkaRequest request) {
        DescribeClientQuotasRequestData req = (DescribeClientQuotasRequestData) request.body().data();
        List<KafkaQuotaEntities.Component> components = req.components().stream()
            .map(c -> new KafkaQuotaEntities.Component(c.entityType(), c.matchType(), c.match())).toList();
        DescribeClientQuotasResponseData out = new DescribeClientQuotasResponseData().setErrorCode(Errors.NONE.code())
            .setEntries(new ArrayList<>());
        for (Map.Entry<ConfigResource, Map<String, String>> e : served.current().configs().entrySet()) {
            ConfigResource r = e.getKey();
            if (e.getValue().isEmpty() || !KafkaQuotaEntities.matches(r, components, req.strict())) {
                continue;
            }
            DescribeClientQuotasResponseData.EntryData entry = new DescribeClientQuotasResponseData.EntryData();
            entry.entity().add(new DescribeClientQuotasResponseData.EntityData().setEntityType(KafkaQuotaEntities.entityType(r))
                .setEntityName(KafkaQuotaEntities.entityName(r)));
            e.getValue().forEach((k, v) -> entry.values().add(new DescribeClientQuotasResponseData.ValueData().setKey(k)
                .setValue(Double.parseDouble(v))));
            out.entries().add(entry);
        }
        return now(out);
    }

    /** One controller call per entity, answered on its own. */
    CompletableFuture<ApiMessage> alterClientQuotas(KafkaRequest request) {
        AlterClientQuotasRequestData req = (AlterClientQuotasRequestData) request.body().data();
        List<CompletableFuture<AlterClientQuotasResponseData.EntryData>> results = new ArrayList<>();
        for (AlterClientQuotasRequestData.EntryData e : req.entries()) {
            AlterClientQuotasResponseData.EntryData result = new AlterClientQuotasResponseData.EntryData();
            e.entity().forEach(d -> result.entity().add(new AlterClientQuotasResponseData.EntityData()
                .setEntityType(d.entityType()).setEntityName(d.entityName())));
            ConfigResource resource;
            try {
                resource = KafkaQuotaEntities.resource(e.entity().stream()
                    .map(d -> Map.entry(d.entityType(), d.entityName() == null ? KafkaQuotaEntities.DEFAULT : d.entityName()))
                    .toList());
            } catch (KafkaRefusal r) {
                results.add(CompletableFuture.completedFuture(result.setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage(r.getMessage())));
                continue;
            }
            AlterConfigsRequest.Builder ours = AlterConfigsRequest.newBuilder().setValidateOnly(req.validateOnly());
            for (AlterClientQuotasRequestData.OpData op : e.ops()) {
                AlterConfigsRequest.Op.Builder o = AlterConfigsRequest.Op.newBuilder().setResourceType(resource.type())
                    .setResourceName(resource.name()).setName(op.key());
                if (!op.remove()) {
                    o.setValue(KafkaQuotaEntities.value(op.value()));
                }
                ours.addOps(o);
            }
            results.add(Unary.call(service::alterConfigs, ours.build()).thenApply(r -> result
                .setErrorCode(KafkaApis.code(r.getError())).setErrorMessage(KafkaApis.message(r.getError()))));
        }
        return CompletableFuture.allOf(results.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
            AlterClientQuotasResponseData out = new AlterClientQuotasResponseData();
            results.forEach(f -> out.entries().add(f.join()));
            return out;
        });
    }
}
