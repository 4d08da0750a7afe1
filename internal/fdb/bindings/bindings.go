//go:build fdb

package bindings

import (
	"context"
	"os"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
	"github.com/apple/foundationdb/bindings/go/src/fdb/tuple"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	model "github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// APIVersion is the client API version: FoundationDB 7.1, the oldest
// release the provider supports. The multi-version client uses an external
// library only when it supports the API version selected
// (documentation/sphinx/source/api-general.rst, "Multi-version client"),
// so that 7.1's reaches 7.1 databases.
const APIVersion = 710

// Timeout bounds every transaction, which is tried once: the reconcile
// loop is the retry.
const Timeout = 10 * time.Second

// transactionTimedOut is the FoundationDB error code of a transaction that
// exceeded its timeout.
const transactionTimedOut = 1031

const (
	errAPIVersion       = "cannot select the FoundationDB API version"
	errLogGroup         = "cannot set the client's trace log group"
	errClientDir        = "cannot set the client's external client directory"
	errNetworkOptionTLS = "cannot set the client's TLS settings"
	errOpen             = "cannot open database"
	errReadStatus       = "cannot read status"
	errExclude          = "cannot exclude processes"
	errInclude          = "cannot include processes"
	errTakeLock         = "cannot take the global lock"
	errReleaseLock      = "cannot release the global lock"
	errUpdateDenyList   = "cannot update the lock's deny list"
	reasonBadLock       = "the lock's key holds no (holder, start, end) tuple"
	reasonBadDenyKey    = "the lock's deny list holds a key that names no instance"
)

var (
	statusKey = fdb.Key("\xff\xff/status/json")
	// lockKey holds the global lock as the tuple (holder, start, end),
	// times in Unix seconds, as the FoundationDB operator keeps its own
	// under \xff\x02/org.foundationdb.kubernetes-operator/global.
	lockKey = fdb.Key("\xff\x02/org.crossplane-contrib.provider-foundationdb/global")
	// denyKey holds one key per denied instance ID.
	denyKey = subspace.FromBytes([]byte("\xff\x02/org.crossplane-contrib.provider-foundationdb/denyList/"))
)

// Special-key prefixes of the exclusion list, one key per target.
const (
	excludedPrefix         = "\xff\xff/management/excluded/"
	excludedLocalityPrefix = "\xff\xff/management/excluded_locality/"
)

// network selects the API version and sets the client's network options,
// once per process and before the first database opens (which starts the
// network): the trace log group names the provider among the database's
// clients (cluster.clients in the status; the client is "default" without
// one, NativeAPI.actor.cpp@7.3.63:162 and 2464-2471), as the tools'
// --log-group does; the external client directory of
// EnvExternalClientDirectory, when set, gives the client the libraries of
// the older lines; and the TLS settings of the first Open, when set, are
// what the client presents to every database (see TLS), which the
// multi-version client passes on to every library it loads
// (MultiVersionApi::setNetworkOptionInternal,
// fdbclient/MultiVersionTransaction.actor.cpp at 7.3.63).
var network = &networkOnce{setup: func(tls TLS) error {
	if err := fdb.APIVersion(APIVersion); err != nil {
		return errors.Wrap(err, errAPIVersion)
	}
	o := fdb.Options()
	if err := o.SetTraceLogGroup(model.ToolsLogGroup); err != nil {
		return errors.Wrap(err, errLogGroup)
	}
	if dir := os.Getenv(EnvExternalClientDirectory); dir != "" {
		if err := o.SetExternalClientDirectory(dir); err != nil {
			return errors.Wrap(err, errClientDir)
		}
	}
	if tls == (TLS{}) {
		return nil
	}
	for _, set := range []func() error{
		func() error { return o.SetTLSCertPath(tls.CertificateFile) },
		func() error { return o.SetTLSKeyPath(tls.KeyFile) },
		func() error { return o.SetTLSCaPath(tls.CAFile) },
		func() error {
			if tls.VerifyPeers == "" {
				return nil
			}
			return o.SetTLSVerifyPeers([]byte(tls.VerifyPeers))
		},
	} {
		if err := set(); err != nil {
			return errors.Wrap(err, errNetworkOptionTLS)
		}
	}
	return nil
}}

// databases are the process's open databases, one per cluster file.
var databases = newPool(openDatabase, fdb.Database.Close, time.Now, idleAfter)

// openDatabase opens the database of clusterFile with every transaction
// bounded by Timeout and tried once.
func openDatabase(clusterFile string) (fdb.Database, error) {
	db, err := fdb.OpenDatabase(clusterFile)
	if err != nil {
		return fdb.Database{}, err
	}
	if err := db.Options().SetTransactionTimeout(Timeout.Milliseconds()); err != nil {
		db.Close()
		return fdb.Database{}, err
	}
	if err := db.Options().SetTransactionRetryLimit(1); err != nil {
		db.Close()
		return fdb.Database{}, err
	}
	return db, nil
}

// Client reads the status and manages exclusions through special keys, and
// holds the global lock (fdb.Locker) in the database of one cluster file.
// It holds its database open only for the length of each call: the pool
// keeps it open between calls, and closes it once unused.
type Client struct {
	clusterFile string
}

var _ model.Locker = &Client{}

// Open returns the client of the cluster named by clusterFile, opening its
// database when it is not open, with the client's network started with
// tls: every Open of a process must pass the same settings (see TLS).
func Open(clusterFile string, tls TLS) (*Client, error) {
	if err := network.start(tls); err != nil {
		return nil, err
	}
	_, release, err := databases.acquire(clusterFile)
	if err != nil {
		return nil, errors.Wrap(err, errOpen)
	}
	release()
	return &Client{clusterFile: clusterFile}, nil
}

// use calls f with the client's database, kept open until f returns.
func (c *Client) use(f func(db fdb.Database) (any, error)) (any, error) {
	db, release, err := databases.acquire(c.clusterFile)
	if err != nil {
		return nil, errors.Wrap(err, errOpen)
	}
	defer release()
	return f(db)
}

// transact runs f in a transaction of the client's database.
func (c *Client) transact(f func(fdb.Transaction) (any, error)) (any, error) {
	return c.use(func(db fdb.Database) (any, error) { return db.Transact(f) })
}

// classify maps a transaction timeout to model.ErrTimeout.
func classify(err error) error {
	var fe fdb.Error
	if errors.As(err, &fe) && fe.Code == transactionTimedOut {
		return errors.Wrap(model.ErrTimeout, err.Error())
	}
	return err
}

// Status reads \xff\xff/status/json.
func (c *Client) Status() (*model.Status, error) {
	raw, err := c.use(func(db fdb.Database) (any, error) {
		return db.ReadTransact(func(tr fdb.ReadTransaction) (any, error) {
			return tr.Get(statusKey).Get()
		})
	})
	if err != nil {
		return nil, errors.Wrap(classify(err), errReadStatus)
	}
	s, err := model.ParseStatus(raw.([]byte))
	return s, errors.Wrap(err, errReadStatus)
}

// exclusionKey returns the special key of an exclusion target.
func exclusionKey(t model.ProcessAddress) fdb.Key {
	if _, _, ok := t.Locality(); ok {
		return fdb.Key(excludedLocalityPrefix + string(t))
	}
	return fdb.Key(excludedPrefix + string(t))
}

// Exclude adds targets to the exclusion list. Like `exclude no_wait` it
// does not wait for data to move.
func (c *Client) Exclude(targets []model.ProcessAddress) error {
	return errors.Wrap(c.updateExclusions(targets, true), errExclude)
}

// Include removes targets from the exclusion list.
func (c *Client) Include(targets []model.ProcessAddress) error {
	return errors.Wrap(c.updateExclusions(targets, false), errInclude)
}

func (c *Client) updateExclusions(targets []model.ProcessAddress, exclude bool) error {
	_, err := c.transact(func(tr fdb.Transaction) (any, error) {
		if err := tr.Options().SetSpecialKeySpaceEnableWrites(); err != nil {
			return nil, err
		}
		for _, t := range targets {
			if exclude {
				tr.Set(exclusionKey(t), nil)
			} else {
				tr.Clear(exclusionKey(t))
			}
		}
		return nil, nil
	})
	return classify(err)
}

// TakeLock implements fdb.Locker: one transaction reads the lock and the
// deny list and writes what fdb.Grant decides.
func (c *Client) TakeLock(_ context.Context, r model.LockRequest) (model.GlobalLock, error) {
	l, err := c.transact(func(tr fdb.Transaction) (any, error) {
		held, denied, err := readLock(tr)
		if err != nil {
			return nil, err
		}
		l, err := model.Grant(held, denied, r)
		if err != nil {
			return nil, err
		}
		tr.Set(lockKey, tuple.Tuple{l.Holder, l.Start.Unix(), l.End.Unix()}.Pack())
		return l, nil
	})
	if err != nil {
		return model.GlobalLock{}, errors.Wrap(classify(err), errTakeLock)
	}
	return l.(model.GlobalLock), nil
}

// ReleaseLock implements fdb.Locker.
func (c *Client) ReleaseLock(_ context.Context, holder string) error {
	_, err := c.transact(func(tr fdb.Transaction) (any, error) {
		held, _, err := readLock(tr)
		if err == nil && model.Released(held, holder) == nil {
			tr.Clear(lockKey)
		}
		return nil, err
	})
	return errors.Wrap(classify(err), errReleaseLock)
}

// UpdateLockDenyList implements fdb.Locker: one key per denied ID.
func (c *Client) UpdateLockDenyList(_ context.Context, entries []model.LockDenyEntry) error {
	_, err := c.transact(func(tr fdb.Transaction) (any, error) {
		if err := tr.Options().SetAccessSystemKeys(); err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.Allow {
				tr.Clear(denyKey.Sub(e.ID))
			} else {
				tr.Set(denyKey.Sub(e.ID), nil)
			}
		}
		return nil, nil
	})
	return errors.Wrap(classify(err), errUpdateDenyList)
}

// readLock reads the lock held (nil when none is) and the deny list.
func readLock(tr fdb.Transaction) (*model.GlobalLock, map[string]bool, error) {
	if err := tr.Options().SetAccessSystemKeys(); err != nil {
		return nil, nil, err
	}
	var denied map[string]bool
	kvs, err := tr.GetRange(denyKey, fdb.RangeOptions{}).GetSliceWithError()
	if err != nil {
		return nil, nil, err
	}
	for _, kv := range kvs {
		t, err := denyKey.Unpack(kv.Key)
		if err != nil || len(t) != 1 {
			return nil, nil, errors.Errorf("%s: %q", reasonBadDenyKey, kv.Key)
		}
		id, _ := t[0].(string)
		denied = model.DenyList(denied, []model.LockDenyEntry{{ID: id}})
	}
	raw, err := tr.Get(lockKey).Get()
	if err != nil || raw == nil {
		return nil, denied, err
	}
	t, err := tuple.Unpack(raw)
	if err != nil || len(t) != 3 {
		return nil, nil, errors.Errorf("%s: %q", reasonBadLock, raw)
	}
	holder, okH := t[0].(string)
	start, okS := t[1].(int64)
	end, okE := t[2].(int64)
	if !okH || !okS || !okE {
		return nil, nil, errors.Errorf("%s: %q", reasonBadLock, raw)
	}
	return &model.GlobalLock{Holder: holder, Start: time.Unix(start, 0).UTC(), End: time.Unix(end, 0).UTC()}, denied, nil
}
