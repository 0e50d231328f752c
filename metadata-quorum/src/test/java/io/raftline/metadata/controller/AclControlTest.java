package io.raftline.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.metadata.image.MetadataDelta;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.acl.AclBinding;
import io.raftline.protocol.acl.AclFilter;
import io.raftline.protocol.acl.Operation;
import io.raftline.protocol.acl.PatternType;
import io.raftline.protocol.acl.Permission;
import io.raftline.protocol.acl.ResourceType;
import io.raftline.protocol.controller.CreateAclsRequest;
import io.raftline.protocol.controller.CreateAclsResponse;
import io.raftline.protocol.controller.DeleteAclsRequest;
import io.raftline.protocol.controller.DeleteAclsResponse;
import org.junit.jupiter.api.Test;

class AclControlTest {

    private static final AclBinding WRITE = AclBinding.newBuilder().setPrincipal("User:app").setHost("*")
        .setResourceType(ResourceType.TOPIC).setResourceName("orders").setPatternType(PatternType.LITERAL)
        .setOperation(Operation.WRITE).setPermission(Permission.ALLOW).build();
    private static final AclBinding READ = WRITE.toBuilder().setOperation(Operation.READ).build();

    private static MetadataImage applied(MetadataImage image, ControllerResult<?> result) {
        return MetadataDelta.replayAll(image, image.index() + 1, result.records()).image();
    }

    @Test
    void oneInvalidBindingRefusesTheWholeRequest() {
        ControllerResult<CreateAclsResponse> r = AclControl.createAcls(MetadataImage.EMPTY, CreateAclsRequest.newBuilder()
            .addBindings(WRITE).addBindings(WRITE.toBuilder().setPrincipal("app")).build());
        assertThat(r.records()).isEmpty();
        CreateAclsResponse response = r.response().apply(MetadataImage.EMPTY);
        assertThat(response.getError().getCode()).isEqualTo(ErrorCode.INVALID_REQUEST);
        assertThat(response.getError().getMessage()).contains("'app'");
    }

    @Test
    void onlyNewBindingsAreWrittenAndFiltersRemoveWhatTheyMatch() {
        MetadataImage image = applied(MetadataImage.EMPTY, AclControl.createAcls(MetadataImage.EMPTY,
            CreateAclsRequest.newBuilder().addBindings(WRITE).build()));
        ControllerResult<CreateAclsResponse> again = AclControl.createAcls(image,
            CreateAclsRequest.newBuilder().addBindings(WRITE).addBindings(READ).build());
        assertThat(again.records()).hasSize(1);
        image = applied(image, again);
        assertThat(image.acls()).containsExactlyInAnyOrder(WRITE, READ);

        ControllerResult<DeleteAclsResponse> none = AclControl.deleteAcls(image, DeleteAclsRequest.newBuilder()
            .addFilters(AclFilter.newBuilder().setPrincipal("User:other")).build());
        assertThat(none.records()).isEmpty();
        ControllerResult<DeleteAclsResponse> byOp = AclControl.deleteAcls(image, DeleteAclsRequest.newBuilder()
            .addFilters(AclFilter.newBuilder().setPrincipal("User:app").setOperation(Operation.READ)).build());
        assertThat(byOp.response().apply(image).getRemovedList()).containsExactly(READ);
        image = applied(image, byOp);
        assertThat(image.acls()).containsExactly(WRITE);
    }
}
