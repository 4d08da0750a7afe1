// Package e2e is the end-to-end lane of `make test`: the FDBDatabase API of
// examples/composition served for real. It starts the local kwok cluster of
// `make run` (internal/localrun) with the provider on the FoundationDB
// simulator, runs Crossplane core v2.4.0 as a local process beside the
// composition function, applies the XRD and Composition as a platform team
// would, and composes, scales and deletes FDBDatabases through Crossplane.
// It has only tests.
package e2e
