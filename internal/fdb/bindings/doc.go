// Package bindings talks to a FoundationDB cluster through the native
// client library (github.com/apple/foundationdb/bindings/go) for the few
// operations that have a special-key form or need a transaction: reading
// the status, managing exclusions, and the global lock (fdb.Locker), which
// serializes steps with database-wide effect across provider instances.
// fdbcli cannot hold that lock: it has no transaction that reads a key and
// writes what depends on it. Configuration, backups and restores always use
// the binaries of package fdbcli.
//
// The client needs libfdb_c and is compiled only with the build tag fdb;
// untagged code uses only what needs no library: the environment setting
// of the external client directory and the pool that keeps the open
// databases.
package bindings
