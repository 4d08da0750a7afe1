package main

// What run wires itself needs: leader election takes a Lease in the
// provider's namespace, and crossplane-runtime's safe-start watches the CRDs
// to start each managed kind's controller once its CRD is established. The
// controllers' permissions sit next to their code; `make generate` collects
// all of them into examples/provider/clusterrole.yaml.
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;create;update
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;list;watch
