package sim

import (
	"bytes"
	"time"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// tlsState is what a process's TLS layer holds: the settings of its
// command line, the credentials it loaded, the content of its files when
// it last looked at them, when it looks next, and the TLS connections it
// established to coordinators.
type tlsState struct {
	settings   tlsSettings
	configured bool
	creds      *credentials // nil: none usable
	seen       [3][]byte
	nextLook   time.Time // zero: it never looks again
	links      map[fdb.ProcessAddress]link
}

// link is a TLS connection a process established to the process serving
// a coordinator: it lasts while that process runs as it ran when the
// connection was made (started is its start), whatever happens to either
// side's certificate since, as verification happens at the handshake only.
type link struct {
	peer    string
	started time.Time
}

// start reads the TLS settings of commandLine and loads the files pod g
// holds, when the process starts at now: a process whose files do not
// load has no usable credentials (fdbserver logs Net2TLSInitError and
// runs on, flow/Net2.actor.cpp at 7.3.63), so every TLS connection of
// its fails. It looks at its files again every refresh delay (none when
// the delay is not positive). A restart drops every connection.
func (t *tlsState) start(now time.Time, commandLine string, g ProcessGroup, creds loaded) {
	*t = tlsState{}
	t.settings, t.configured = tlsSettingsOf(commandLine)
	if !t.configured {
		return
	}
	t.seen = t.settings.files(g)
	t.creds, _ = creds.load(t.seen, t.settings.verifyPeers)
	if t.settings.refresh > 0 {
		t.nextLook = now.Add(t.settings.refresh)
	}
}

// look plays the looks at the files pod g holds that are due at now, as
// reloadCertificatesOnChange does (flow/Net2.actor.cpp at 7.1.67 and
// 7.3.63): a file that changed since the last look triggers a reload of
// all three, which replaces the credentials when they load and keeps the
// old ones when they do not (TLSCertificateRefreshMismatch). New
// connections use the credentials loaded last; established ones keep
// going.
func (t *tlsState) look(now time.Time, g ProcessGroup, creds loaded) {
	for !t.nextLook.IsZero() && !t.nextLook.After(now) {
		files := t.settings.files(g)
		if !bytes.Equal(files[0], t.seen[0]) || !bytes.Equal(files[1], t.seen[1]) || !bytes.Equal(files[2], t.seen[2]) {
			t.seen = files
			if c, err := creds.load(files, t.settings.verifyPeers); err == nil {
				t.creds = c
			}
		}
		t.nextLook = t.nextLook.Add(t.settings.refresh)
	}
}

// joins reports whether process p, which listens, joins the database:
// it holds connections to a quorum of the coordinators that run (the
// coordinators stand in for the cluster controller it registers with). A
// connection is one it established before, or one it makes now (connects).
// Plain-text connections always succeed, so in a database without TLS
// every process that listens joins, as before TLS was modelled.
func (s *Sim) joins(p *process) bool {
	n := 0
	for _, c := range s.conn.Coordinators {
		if s.coordinatorReachable(c) && s.connects(p, s.listening[string(c)], c) {
			n++
		}
	}
	return n >= quorum(len(s.conn.Coordinators))
}

// connects reports whether p holds a connection to coordinator c, served
// by q: q is p itself, or p established a TLS connection to q before, or
// it connects now: to c with TLS when c is a TLS address, and q back to
// p at the address q picks of p's (choosePrimary), with TLS when that is
// a TLS address. A TLS connection needs mutual verification at the
// simulator's time.
func (s *Sim) connects(p, q *process, c fdb.ProcessAddress) bool {
	if p == q {
		return true
	}
	if l, ok := p.tls.links[c]; ok && l.peer == q.id && l.started.Equal(q.started) {
		return true
	}
	back := choosePrimary(q.listeners, p.listeners)
	if !c.TLS() && !back.tls {
		return true
	}
	delete(p.tls.links, c)
	if !mutual(p.tls.creds, q.tls.creds, s.now) {
		return false
	}
	if p.tls.links == nil {
		p.tls.links = map[fdb.ProcessAddress]link{}
	}
	p.tls.links[c] = link{peer: q.id, started: q.started}
	return true
}

// clientReaches reports whether a client holding creds reaches coordinator
// c now: it runs, and when c is a TLS address the client and the process
// serving it verify each other. A client connects anew for each command,
// as fdbcli does.
func (s *Sim) clientReaches(creds *credentials, c fdb.ProcessAddress) bool {
	if !s.coordinatorReachable(c) {
		return false
	}
	return !c.TLS() || mutual(creds, s.listening[string(c)].tls.creds, s.now)
}

// statusAddress is the address the status reports for p: the one the
// cluster controller picks of p's (choosePrimary; fdbserver/Status.actor.cpp
// reports the worker interface's address as the cluster controller holds
// it), else p's primary.
func (s *Sim) statusAddress(p *process) string {
	cc, ok := s.procs[s.roles.clusterController]
	if !ok || !cc.up || len(p.listeners) == 0 {
		return p.address
	}
	return choosePrimary(cc.listeners, p.listeners).String()
}
