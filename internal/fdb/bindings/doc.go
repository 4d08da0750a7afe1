// Package bindings talks to a FoundationDB cluster through the native
// client library (github.com/apple/foundationdb/bindings/go) for the few
// operations that have a special-key form: reading the status, managing
// exclusions, and a lock key that serializes global operations (exclude,
// include, coordinator and configuration changes) across provider
// replicas. Configuration, backups and restores always use the binaries of
// package fdbcli.
//
// The implementation needs libfdb_c and is compiled only with the build
// tag fdb; no untagged code imports this package.
package bindings
