//go:build generate

// Package apis holds the provider's API types. Run `make generate` (which
// runs `go generate ./apis/...`) after changing them.
package apis

// Remove generated files, then regenerate deepcopy methods, CRDs and, with
// crossplane-tools' angryjet, the crossplane-runtime method sets and reference
// resolvers (zz_generated.{managed,managedlist,pc,pcu,pculist,resolvers}.go).
//go:generate rm -rf ../package/crds
//go:generate go tool controller-gen object:headerFile=../hack/boilerplate.go.txt paths=./... crd:crdVersions=v1 output:artifacts:config=../package/crds
//go:generate go tool angryjet generate-methodsets --header-file=../hack/boilerplate.go.txt ./...

// Collect the provider's ClusterRole from the +kubebuilder:rbac markers next
// to the code that needs each permission.
//go:generate go tool controller-gen rbac:roleName=provider-foundationdb,fileName=clusterrole.yaml,headerFile=../hack/clusterrole.header.yaml paths=../cmd/provider paths=../internal/... output:rbac:artifacts:config=../examples/provider

// Write the Grafana dashboard built as code in internal/dashboard.
//go:generate go run ../hack/dashboard ../examples/dashboard/foundationdb.json
