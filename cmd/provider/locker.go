//go:build !fdb

package main

import "github.com/crossplane-contrib/provider-foundationdb/internal/fdb"

// openNativeLocker returns nil without the native client library: fdbcli
// alone cannot hold the global lock (see locker_fdb.go).
func openNativeLocker(flags) func(connectionString string) (fdb.Locker, error) { return nil }
