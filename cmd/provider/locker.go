//go:build !fdb

package main

import "github.com/crossplane-contrib/provider-foundationdb/internal/fdb"

// nativeLocker is nil without the native client library: fdbcli alone
// cannot hold the global lock (see locker_fdb.go).
var nativeLocker func(connectionString string) (fdb.Locker, error)
