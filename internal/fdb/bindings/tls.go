package bindings

import (
	"os"
	"sync"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

const (
	errTLS         = "cannot use the native client's TLS settings"
	reasonTLSFiles = "they need a certificate, key and CA file"
	errNetworkTLS  = "cannot open database: the client's network started with other TLS settings; one provider presents one identity"
)

// TLS is what the native client presents to the processes of the databases
// it reaches and what it trusts of theirs: the paths of its certificate
// (chain), its key and its CA file, and the peer verification rules (empty
// for FoundationDB's default, a chain that verifies against the CA file).
// The zero value presents nothing.
//
// FoundationDB's client sets TLS through network options, before the
// network starts, once per process (TLS_cert_path, TLS_key_path,
// TLS_ca_path and TLS_verify_peers in fdbclient/vexillographer/fdb.options
// at 7.1.67 and 7.3.63): the provider's client presents one identity to
// every database it holds the global lock of, and its CA file must hold
// the CAs of every cluster that speaks TLS. Like the tools, the client
// speaks TLS only to the addresses of a cluster file that end in :tls
// (Net2::connect, flow/Net2.actor.cpp), and reaches plain ones too. It
// reloads the files when they change (TLS_CERT_REFRESH_DELAY_SECONDS, 12
// hours by default), like the processes.
type TLS struct {
	CertificateFile, KeyFile, CAFile, VerifyPeers string
}

// Check returns an error unless t is the zero value or names a
// certificate, key and CA file the provider can read: a client without a
// CA file verifies no server, and one without a certificate cannot take
// the lock where the processes want one. The library would report a file
// it cannot read only in its trace log, when it first dials a TLS address
// (Net2::initTLS, flow/Net2.actor.cpp at 7.3.63).
func (t TLS) Check() error {
	if t == (TLS{}) {
		return nil
	}
	if t.CertificateFile == "" || t.KeyFile == "" || t.CAFile == "" {
		return errors.New(errTLS + ": " + reasonTLSFiles)
	}
	for _, name := range []string{t.CertificateFile, t.KeyFile, t.CAFile} {
		f, err := os.Open(name) //nolint:gosec // a file the provider's flags name
		if err != nil {
			return errors.Wrap(err, errTLS)
		}
		_ = f.Close()
	}
	return nil
}

// networkOnce sets the client's network up once per process, with the TLS
// settings of the first start; a later start with the same settings shares
// that setup and its error, one with other settings fails: the network is
// the process's, and a database must not be reached with an identity its
// caller did not ask for.
type networkOnce struct {
	setup func(TLS) error

	mu      sync.Mutex
	started bool
	tls     TLS
	err     error
}

// start sets the network up with tls unless it is set up already.
func (n *networkOnce) start(tls TLS) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.started {
		n.started, n.tls, n.err = true, tls, n.setup(tls)
		return n.err
	}
	if tls != n.tls {
		return errors.New(errNetworkTLS)
	}
	return n.err
}
