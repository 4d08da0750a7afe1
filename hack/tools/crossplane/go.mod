// Module crossplane pins Crossplane core, whose CRDs (cluster/crds) the
// composition tests install to validate examples/composition. It is separate
// from hack/tools because Crossplane's dependencies differ from the control
// plane's.
module github.com/crossplane-contrib/provider-foundationdb/hack/tools/crossplane

go 1.26

require github.com/crossplane/crossplane/v2 v2.4.0
