package sim

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// How fdbserver takes its TLS settings from its command line (see
// docs/SIMULATOR.md, TLS): flag names with hyphens read as underscores
// (SO_O_HYPHEN_TO_UNDERSCORE, fdbserver/fdbserver.actor.cpp at 7.1.67 and
// 7.3.63), and the knob that sets how often it looks at its certificate
// files (TLS_CERT_REFRESH_DELAY_SECONDS, flow/Knobs.cpp).
const (
	flagCertificateFile = "tls_certificate_file"
	flagKeyFile         = "tls_key_file"
	flagCAFile          = "tls_ca_file"
	flagVerifyPeers     = "tls_verify_peers"
	knobRefreshDelay    = "knob_tls_cert_refresh_delay_seconds"
	// defaultRefreshDelay is TLS_CERT_REFRESH_DELAY_SECONDS' default.
	defaultRefreshDelay = 12 * time.Hour
	tlsSuffix           = ":tls"
)

const (
	errLoadCertificate = "cannot load the TLS certificate and key"
	errLoadCA          = "cannot load the TLS CA file: it holds no certificate"
	errParseRules      = "cannot parse the peer verification rules"
)

// flagValues are the values of --<name>=<value> in commandLine, in order;
// a hyphen in a flag's name reads as an underscore.
func flagValues(commandLine, name string) []string {
	var out []string
	for _, arg := range strings.Fields(commandLine) {
		flag, ok := strings.CutPrefix(arg, "--")
		if !ok {
			continue
		}
		if k, v, ok := strings.Cut(flag, "="); ok && strings.ReplaceAll(k, "-", "_") == name {
			out = append(out, v)
		}
	}
	return out
}

// lastFlag is the last value of flag name in commandLine, "" when none.
func lastFlag(commandLine, name string) string {
	vs := flagValues(commandLine, name)
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// listener is an address a process listens on: host:port, with TLS or in
// plain text.
type listener struct {
	hostPort string
	tls      bool
}

// String is the address as FoundationDB prints it: ":tls" for TLS.
func (l listener) String() string {
	if l.tls {
		return l.hostPort + tlsSuffix
	}
	return l.hostPort
}

// listenersOf are the addresses the index-th process of a pod with IP ip
// listens on with commandLine, primary first: its --public_address values,
// else the plain fdb.ProcessPort of ip.
func listenersOf(commandLine, ip string, index int) []listener {
	var out []listener
	for _, a := range fdb.ListenAddresses(commandLine, processAddress(ip, index)) {
		out = append(out, listener{hostPort: strings.TrimSuffix(a, tlsSuffix), tls: fdb.ProcessAddress(a).TLS()})
	}
	return out
}

// choosePrimary is the address of remote, which listens on remote, that a
// process listening on local connects to: remote's primary, unless remote
// has a second address and either local has one address of the other kind
// than remote's primary, or local has two and remote's primary is not TLS
// (Endpoint::choosePrimaryAddress, fdbrpc/FlowTransport.h at 7.1.67 and
// 7.3.63). So a process that listens on both reaches another that does
// with TLS.
func choosePrimary(local, remote []listener) listener {
	if len(remote) > 1 && (len(local) == 1 && remote[0].tls != local[0].tls || len(local) > 1 && !remote[0].tls) {
		return remote[1]
	}
	return remote[0]
}

// tlsSettings are the TLS settings a process's command line gives it: the
// files it names and the peer verification rules.
type tlsSettings struct {
	certificate, key, ca string
	verifyPeers          []string
	refresh              time.Duration
}

// tlsSettingsOf reads the TLS settings of commandLine; configured is false
// when it names no certificate file.
func tlsSettingsOf(commandLine string) (tlsSettings, bool) {
	t := tlsSettings{
		certificate: lastFlag(commandLine, flagCertificateFile),
		key:         lastFlag(commandLine, flagKeyFile),
		ca:          lastFlag(commandLine, flagCAFile),
		verifyPeers: flagValues(commandLine, flagVerifyPeers),
		refresh:     defaultRefreshDelay,
	}
	if v := lastFlag(commandLine, knobRefreshDelay); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			t.refresh = time.Duration(n) * time.Second
		}
	}
	return t, t.certificate != ""
}

// files is what the pod holds at the paths t names: certificate, key and
// CA file, in that order (nil for a file it lacks).
func (t tlsSettings) files(g ProcessGroup) [3][]byte {
	return [3][]byte{g.Files[t.certificate], g.Files[t.key], g.Files[t.ca]}
}

// credentials are what one side of a TLS connection presents and trusts:
// its certificate (and the chain it sends), the CAs it trusts and the
// rules a peer's certificate must satisfy.
type credentials struct {
	leaf          *x509.Certificate
	intermediates *x509.CertPool
	roots         *x509.CertPool
	rules         []verifyRule
}

// loadCredentials loads credentials from PEM files, as fdbserver loads
// its TLS configuration: the key must be the certificate's, a CA file must
// hold a certificate, and the rules must parse.
func loadCredentials(cert, key, ca []byte, verifyPeers []string) (*credentials, error) {
	pair, err := tls.X509KeyPair(cert, key)
	if err != nil {
		return nil, errors.Wrap(err, errLoadCertificate)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, errors.Wrap(err, errLoadCertificate)
	}
	c := &credentials{leaf: leaf, intermediates: x509.NewCertPool(), roots: x509.NewCertPool()}
	for _, der := range pair.Certificate[1:] {
		if ic, err := x509.ParseCertificate(der); err == nil {
			c.intermediates.AddCert(ic)
		}
	}
	if len(ca) > 0 && !c.roots.AppendCertsFromPEM(ca) {
		return nil, errors.New(errLoadCA)
	}
	for _, v := range verifyPeers {
		rules, err := parseVerifyPeers(v)
		if err != nil {
			return nil, errors.Wrap(err, errParseRules)
		}
		c.rules = append(c.rules, rules...)
	}
	return c, nil
}

// loaded are credentials loaded before, by the content of their files and
// rules: every process of a database loads the same files, and the
// credentials are only read once loaded, so one copy serves them all.
// It holds what loaded and what failed to, for a few sets of files at a
// time (a rotation adds one): a database that cycles through more starts
// over.
type loaded map[string]loadResult

// loadResult is what loading one set of files gave.
type loadResult struct {
	creds *credentials
	err   error
}

// maxLoaded is how many sets of files loaded keeps.
const maxLoaded = 8

// load returns the credentials of files (certificate, key, CA) and the
// rules verifyPeers, as loadCredentials.
func (l loaded) load(files [3][]byte, verifyPeers []string) (*credentials, error) {
	h := sha256.New()
	for _, b := range append(files[:], []byte(strings.Join(verifyPeers, "\x00"))) {
		h.Write(binary.AppendUvarint(nil, uint64(len(b))))
		h.Write(b)
	}
	key := string(h.Sum(nil))
	if r, ok := l[key]; ok {
		return r.creds, r.err
	}
	if len(l) >= maxLoaded {
		clear(l)
	}
	c, err := loadCredentials(files[0], files[1], files[2], verifyPeers)
	l[key] = loadResult{creds: c, err: err}
	return c, err
}

// fromTLSCredentials loads a client's credentials; nil without any.
func fromTLSCredentials(t *fdb.TLSCredentials) (*credentials, error) {
	if t == nil {
		return nil, nil
	}
	var rules []string
	if t.VerifyPeers != "" {
		rules = []string{t.VerifyPeers}
	}
	return loadCredentials(t.Certificate, t.Key, t.CA, rules)
}

// mutual reports whether a TLS connection between the sides holding a and
// b succeeds at now: both have credentials and each accepts the other's
// certificate. A side without usable credentials connects to nobody over
// TLS.
func mutual(a, b *credentials, now time.Time) bool {
	return a != nil && b != nil && a.accepts(b, now) && b.accepts(a, now)
}

// accepts reports whether c accepts peer's certificate at now, as
// TLSPolicy::verify_peer does (flow/TLSConfig.actor.cpp at 7.1.67 and
// 7.3.63): any rule with Check.Valid=0 accepts anything; otherwise the
// chain must verify against c's CAs at now (expired or not yet valid
// certificates fail), and then any rule must match (no rules: the default
// Check.Valid=1, which the chain alone satisfies).
func (c *credentials) accepts(peer *credentials, now time.Time) bool {
	if slices.ContainsFunc(c.rules, func(r verifyRule) bool { return !r.verifyCert }) {
		return true
	}
	chains, err := peer.leaf.Verify(x509.VerifyOptions{
		Roots: c.roots, Intermediates: peer.intermediates, CurrentTime: now,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny},
	})
	if err != nil {
		return false
	}
	if len(c.rules) == 0 {
		return true
	}
	chain := chains[0]
	return slices.ContainsFunc(c.rules, func(r verifyRule) bool { return r.matches(chain[0], chain[len(chain)-1]) })
}

// verifyRule is one rule of --tls-verify-peers: Check.Valid and the
// criteria on the subject (S), issuer (I) and root (R) of a peer's
// certificate chain. Check.Unexpired is parsed and, as in FoundationDB's
// OpenSSL build, has no effect.
type verifyRule struct {
	verifyCert bool
	criteria   []criterion
}

// criterion is one condition of a rule: field of scope must be value
// (match '='), start with it ('>') or end with it ('<').
type criterion struct {
	scope, field, value string
	match               byte
}

// nameFields are the distinguished name fields a rule may name, by their
// object identifiers (abbrevToNID, flow/TLSConfig.actor.cpp).
var nameFields = map[string]asn1.ObjectIdentifier{
	"C":   {2, 5, 4, 6},
	"CN":  {2, 5, 4, 3},
	"L":   {2, 5, 4, 7},
	"ST":  {2, 5, 4, 8},
	"O":   {2, 5, 4, 10},
	"OU":  {2, 5, 4, 11},
	"UID": {0, 9, 2342, 19200300, 100, 1, 1},
	"DC":  {0, 9, 2342, 19200300, 100, 1, 25},
}

// fieldSubjectAltName matches a subject alternative name: DNS:, EMAIL:,
// URI: or IP: and the value (IP against the address's bytes, as
// FoundationDB compares them).
const fieldSubjectAltName = "subjectAltName"

// parseVerifyPeers parses the value of one --tls-verify-peers: rules
// separated by an unescaped "|" (TLSPolicy::set_verify_peers).
func parseVerifyPeers(v string) ([]verifyRule, error) {
	var out []verifyRule
	for _, s := range splitUnescaped(v, '|') {
		r, err := parseRule(s)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// splitUnescaped splits s at each sep not preceded by a backslash.
func splitUnescaped(s string, sep byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == sep && (i == 0 || s[i-1] != '\\') {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// parseRule parses one rule, comma-separated conditions "key=value",
// "key>=value" or "key<=value" (TLSPolicy::Rule::Rule): Check.Valid and
// Check.Unexpired take 0 or 1 and no prefix or suffix match; other keys
// are fields of nameFields or subjectAltName, optionally scoped by S.,
// Subject., I., Issuer., R. or Root.; a value ends at an unescaped comma.
// The simulator refuses a field it does not model.
func parseRule(s string) (verifyRule, error) {
	r := verifyRule{verifyCert: true}
	for i := 0; i < len(s); {
		eq := strings.IndexByte(s[i:], '=')
		if eq <= 0 {
			return r, errors.Errorf("no condition at %q", s[i:])
		}
		eq += i
		match := byte('=')
		if c := s[eq-1]; c == '>' || c == '<' {
			match = c
		}
		term := s[i:eq]
		if match != '=' {
			term = s[i : eq-1]
		}
		if flag, ok := strings.CutPrefix(term, "Check."); ok {
			if match != '=' || eq+2 > len(s) || eq+2 < len(s) && s[eq+2] != ',' || s[eq+1] != '0' && s[eq+1] != '1' {
				return r, errors.Errorf("invalid %s", term)
			}
			switch flag {
			case "Valid":
				r.verifyCert = s[eq+1] == '1'
			case "Unexpired":
			default:
				return r, errors.Errorf("unknown check %s", term)
			}
			i = eq + 3
			continue
		}
		scope, field := "S", term
		if sc, f, ok := strings.Cut(term, "."); ok {
			scope, field = map[string]string{"S": "S", "Subject": "S", "I": "I", "Issuer": "I", "R": "R", "Root": "R"}[sc], f
			if scope == "" {
				return r, errors.Errorf("unknown scope %s", sc)
			}
		}
		if _, known := nameFields[field]; !known && (field != fieldSubjectAltName || scope != "S") {
			return r, errors.Errorf("field %s.%s is not modelled", scope, field)
		}
		var value []byte
		j := eq + 1
		for ; j < len(s) && s[j] != ','; j++ {
			if s[j] == '\\' && j+1 < len(s) {
				j++
			}
			value = append(value, s[j])
		}
		if j == eq+1 {
			return r, errors.Errorf("no value for %s", term)
		}
		r.criteria = append(r.criteria, criterion{scope: scope, field: field, value: string(value), match: match})
		i = j + 1
	}
	return r, nil
}

// matches reports whether every criterion of r holds for leaf and the
// root of its verified chain.
func (r verifyRule) matches(leaf, root *x509.Certificate) bool {
	for _, c := range r.criteria {
		var ok bool
		switch {
		case c.field == fieldSubjectAltName:
			ok = c.matchesAltName(leaf)
		case c.scope == "I":
			ok = c.matchesName(leaf.Issuer.Names)
		case c.scope == "R":
			ok = c.matchesName(root.Subject.Names)
		default:
			ok = c.matchesName(leaf.Subject.Names)
		}
		if !ok {
			return false
		}
	}
	return true
}

// matchesName reports whether the name's field occurs exactly once and
// matches c.
func (c criterion) matchesName(names []pkix.AttributeTypeAndValue) bool {
	var found []string
	for _, n := range names {
		if n.Type.Equal(nameFields[c.field]) {
			s, _ := n.Value.(string)
			found = append(found, s)
		}
	}
	return len(found) == 1 && c.matchesValue([]byte(found[0]))
}

// matchesAltName reports whether a subject alternative name of cert of
// c's kind matches c.
func (c criterion) matchesAltName(cert *x509.Certificate) bool {
	kind, want, ok := strings.Cut(c.value, ":")
	if !ok {
		return false
	}
	var values [][]byte
	switch kind {
	case "DNS":
		for _, v := range cert.DNSNames {
			values = append(values, []byte(v))
		}
	case "EMAIL":
		for _, v := range cert.EmailAddresses {
			values = append(values, []byte(v))
		}
	case "URI":
		for _, v := range cert.URIs {
			values = append(values, []byte(v.String()))
		}
	case "IP":
		for _, v := range cert.IPAddresses {
			if v4 := v.To4(); v4 != nil {
				v = v4
			}
			values = append(values, v)
		}
	}
	w := c
	w.value = want
	return slices.ContainsFunc(values, w.matchesValue)
}

// matchesValue compares an entry with c's value by c's match.
func (c criterion) matchesValue(entry []byte) bool {
	switch c.match {
	case '>':
		return bytes.HasPrefix(entry, []byte(c.value))
	case '<':
		return bytes.HasSuffix(entry, []byte(c.value))
	}
	return string(entry) == c.value
}
