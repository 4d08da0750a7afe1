//go:build fdb

package main

import (
	"os"
	"path/filepath"
	"time"

	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/bindings"
)

// lockTimeout bounds each transaction on the global lock.
const lockTimeout = 10 * time.Second

// nativeLocker holds the global lock of the database connectionString
// reaches through the native client library, which the tag fdb links.
func nativeLocker(connectionString string) (fdb.Locker, error) {
	path, err := connector.ClusterFile(filepath.Join(os.TempDir(), "provider-foundationdb"), connectionString)
	if err != nil {
		return nil, err
	}
	return bindings.Open(path, lockTimeout)
}
