package connector

import (
	"context"
	"errors"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// toolsAcrossUpgrade is the admin client of a cluster whose spec names a
// version of another protocol than the one its processes were last seen
// running: the version ToolsFDB chose its tools by. It uses the tools of
// the running version until they fail to see the database, then asks the
// spec version's tools, and keeps those for the rest of the session once
// they see its processes.
//
// After the gated kill of an incompatible upgrade the processes run the
// new version, and the old version's fdbcli cannot speak their protocol:
// its `status json` either returns a document that names no process (then
// observe records no running version and the next session uses the spec's
// tools) or times out. In the latter case, without this fallback, the
// running version recorded last would keep the old tools, which never see
// the database again. The FoundationDB operator does the same:
// cliAdminClient.getStatus (fdbclient/admin_client.go, v2.33.0) retries
// `status json` with the fdbcli of spec.version when the cluster is being
// upgraded to a protocol-incompatible version and the first attempt ended
// in its TimeoutError, which parseMachineReadableStatus
// (fdbclient/common.go) also returns for a status of an unavailable
// database or one without process information. Like every admin client of
// a session, it serves one reconcile at a time.
type toolsAcrossUpgrade struct {
	// Client is the client in use: the running version's tools, or the
	// spec version's once they saw the processes.
	fdb.Client
	// next returns the spec version's tools; nil once they are in use.
	next func() (fdb.Client, error)
}

// Status implements fdb.Client: the running version's status, unless its
// tools time out, find the database unavailable or see no process; then
// the spec version's status if their tools see the processes. Otherwise
// the first answer stands, so a database that neither version's tools
// can read does not move the session to the spec's tools.
func (t *toolsAcrossUpgrade) Status(ctx context.Context) (*fdb.Status, error) {
	s, err := t.Client.Status(ctx)
	if t.next == nil || ctx.Err() != nil || !seesNoProcess(s, err) {
		return s, err
	}
	next, nerr := t.next()
	if nerr != nil {
		return s, err
	}
	ns, nerr := next.Status(ctx)
	if nerr != nil || len(ns.Cluster.Processes) == 0 {
		return s, err
	}
	t.Client, t.next = next, nil
	return ns, nil
}

// seesNoProcess reports whether a status call of one version's tools saw
// none of the database's processes: it timed out, found the database
// unavailable, or returned a document that names no process.
func seesNoProcess(s *fdb.Status, err error) bool {
	if err != nil {
		return errors.Is(err, fdb.ErrTimeout) || errors.Is(err, fdb.ErrUnavailable)
	}
	return len(s.Cluster.Processes) == 0
}
