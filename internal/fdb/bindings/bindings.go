//go:build fdb

package bindings

import (
	"encoding/json"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	model "github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// APIVersion is the client API version: FoundationDB 7.1, the oldest
// release the provider supports.
const APIVersion = 710

// transactionTimedOut is the FoundationDB error code of a transaction that
// exceeded its timeout.
const transactionTimedOut = 1031

const (
	errAPIVersion  = "cannot select the FoundationDB API version"
	errOpen        = "cannot open database"
	errReadStatus  = "cannot read status"
	errExclude     = "cannot exclude processes"
	errInclude     = "cannot include processes"
	errTakeLock    = "cannot take lock"
	errReleaseLock = "cannot release lock"
	reasonLockHeld = "lock is held by"
)

var (
	statusKey = fdb.Key("\xff\xff/status/json")
	// lockKey holds the owner and expiry of the global operation lock.
	lockKey = fdb.Key("\xff\x02/org.crossplane-contrib.provider-foundationdb/lock")
)

// Special-key prefixes of the exclusion list, one key per target.
const (
	excludedPrefix         = "\xff\xff/management/excluded/"
	excludedLocalityPrefix = "\xff\xff/management/excluded_locality/"
)

// Client reads the status and manages exclusions through special keys.
type Client struct {
	db fdb.Database
}

// Open opens the cluster named by clusterFile. Every transaction is bounded
// by timeout and tried once: the reconcile loop is the retry.
func Open(clusterFile string, timeout time.Duration) (*Client, error) {
	if err := fdb.APIVersion(APIVersion); err != nil {
		return nil, errors.Wrap(err, errAPIVersion)
	}
	db, err := fdb.OpenDatabase(clusterFile)
	if err != nil {
		return nil, errors.Wrap(err, errOpen)
	}
	if err := db.Options().SetTransactionTimeout(timeout.Milliseconds()); err != nil {
		return nil, errors.Wrap(err, errOpen)
	}
	if err := db.Options().SetTransactionRetryLimit(1); err != nil {
		return nil, errors.Wrap(err, errOpen)
	}
	return &Client{db: db}, nil
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
	raw, err := c.db.ReadTransact(func(tr fdb.ReadTransaction) (any, error) {
		return tr.Get(statusKey).Get()
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
	_, err := c.db.Transact(func(tr fdb.Transaction) (any, error) {
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

// lockValue is the content of lockKey.
type lockValue struct {
	Owner   string `json:"owner"`
	Expires int64  `json:"expires"` // Unix seconds
}

// TakeLock takes or renews the global lock for owner until now+d. It fails
// while another owner holds a lock that has not expired.
func (c *Client) TakeLock(owner string, now time.Time, d time.Duration) error {
	return errors.Wrap(c.withLock(owner, now, func(tr fdb.Transaction) error {
		value, err := json.Marshal(lockValue{Owner: owner, Expires: now.Add(d).Unix()})
		if err == nil {
			tr.Set(lockKey, value)
		}
		return err
	}), errTakeLock)
}

// ReleaseLock releases owner's lock; it fails while another owner holds an
// unexpired lock.
func (c *Client) ReleaseLock(owner string, now time.Time) error {
	return errors.Wrap(c.withLock(owner, now, func(tr fdb.Transaction) error {
		tr.Clear(lockKey)
		return nil
	}), errReleaseLock)
}

// withLock runs update in a transaction once the lock is free, expired or
// already owner's.
func (c *Client) withLock(owner string, now time.Time, update func(tr fdb.Transaction) error) error {
	_, err := c.db.Transact(func(tr fdb.Transaction) (any, error) {
		if err := tr.Options().SetAccessSystemKeys(); err != nil {
			return nil, err
		}
		raw, err := tr.Get(lockKey).Get()
		if err != nil {
			return nil, err
		}
		var held lockValue
		if raw != nil && json.Unmarshal(raw, &held) == nil && held.Owner != owner && now.Unix() < held.Expires {
			return nil, errors.Errorf("%s %s until %s", reasonLockHeld, held.Owner, time.Unix(held.Expires, 0).UTC().Format(time.RFC3339))
		}
		return nil, update(tr)
	})
	return classify(err)
}
