//go:build fdb

package main

import (
	"os"
	"path/filepath"

	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/bindings"
)

// openNativeLocker returns what holds the global lock of the database a
// connection string reaches through the native client library, whose
// network presents f's TLS settings to every database. The library opens a
// database by its cluster file (one per connection string), not by the
// connection string itself: the multi-version client opens it through
// each loaded library, and a 7.1 library cannot open one from a connection
// string (fdb_create_database_from_connection_string is 7.2's;
// DLApi::init and ClusterConnectionRecord::createDatabase,
// fdbclient/MultiVersionTransaction.actor.cpp and MultiVersionTransaction.h
// at 7.3.63).
func openNativeLocker(f flags) func(connectionString string) (fdb.Locker, error) {
	return func(connectionString string) (fdb.Locker, error) {
		path, err := connector.ClusterFile(filepath.Join(os.TempDir(), "provider-foundationdb"), connectionString)
		if err != nil {
			return nil, err
		}
		return bindings.Open(path, f.fdbTLS)
	}
}
