package io.raftline.metadata.controller;

import io.raftline.acl.Authorizer;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.acl.AclBinding;
import io.raftline.protocol.acl.AclFilter;
import io.raftline.protocol.controller.CreateAclsRequest;
import io.raftline.protocol.controller.CreateAclsResponse;
import io.raftline.protocol.controller.DeleteAclsRequest;
import io.raftline.protocol.controller.DeleteAclsResponse;
import io.raftline.protocol.metadata.AclRecord;
import io.raftline.protocol.metadata.MetadataRecord;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** ACL changes: validated bindings become {@link AclRecord}s; only what changes the image is written. */
final class AclControl {

    private AclControl() {
    }

    static ControllerResult<CreateAclsResponse> createAcls(MetadataImage image, CreateAclsRequest request) {
        Set<AclBinding> added = new LinkedHashSet<>();
        for (AclBinding b : request.getBindingsList()) {
            Optional<String> why = Authorizer.invalid(b);
            if (why.isPresent()) {
                return ControllerResult.answer(CreateAclsResponse.newBuilder()
                    .setError(Errors.of(ErrorCode.INVALID_REQUEST, "invalid ACL: " + why.get())).build());
            }
            if (!image.acls().contains(b)) {
                added.add(b);
            }
        }
        return ControllerResult.of(records(added, false), CreateAclsResponse.newBuilder().setError(Errors.NONE).build());
    }

    static ControllerResult<DeleteAclsResponse> deleteAcls(MetadataImage image, DeleteAclsRequest request) {
        Set<AclBinding> removed = new LinkedHashSet<>();
        for (AclFilter f : request.getFiltersList()) {
            removed.addAll(image.aclIndex().matching(f));
        }
        return ControllerResult.of(records(removed, true),
            DeleteAclsResponse.newBuilder().setError(Errors.NONE).addAllRemoved(removed).build());
    }

    private static List<MetadataRecord> records(Set<AclBinding> bindings, boolean removed) {
        List<MetadataRecord> out = new ArrayList<>();
        for (AclBinding b : bindings) {
            out.add(MetadataImage.wrap(MetadataRecord.newBuilder()
                .setAcl(AclRecord.newBuilder().setBinding(b).setRemoved(removed))));
        }
        return out;
    }
}
