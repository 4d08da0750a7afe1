package workload

import (
	"net"
	"slices"
	"sort"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// fdbserver's command line parser, as far as a monitor configuration can
// meet it: fdbserver (fdbserver/fdbserver.actor.cpp CLIOptions, the same
// at 7.1.67 and 7.3.63) parses its arguments with CSimpleOpt against its
// option table g_rgOptions, with SO_O_EXACT | SO_O_HYPHEN_TO_UNDERSCORE,
// and exits with an error on the first argument the table refuses; the
// monitor then starts it again after a back-off, for good. The tables
// below are internal/fdb/testdata/real/server/options.json
// (TestServerOptionTablesAreTheRealOnes keeps them equal), compact: the
// options of 7.3.63 are those of 7.1.67 and a few more. A name ending in
// '=' takes a value; one whose name ends in '-' is a prefix.
const (
	serverOptions71 = `--blob-credential-file= --bufferedout --buggify= --build-flags --cache-memory= --class=
--cluster-file= --config-path= --consistency-check-urgent-mode --crash --data-filesystem=
--datacenter-id= --datadir= --dev-help --fault-injection= --help --io-trust-seconds=
--io-trust-warn-only --key= --knob-= --kvfile= --listen-address= --locality-= --logdir= --loggroup=
--logsize= --machine-id= --maxlogs= --maxlogssize= --memory= --memory-vsize= --metrics-cluster=
--metrics-prefix= --network= --num-testers= --parentpid= --print-sim-time --process-endpoint=
--process-name= --profiler-= --public-address= --restarting --role= --rsssize= --seed=
--seed-cluster-file= --seed-connection-string= --storage-memory= --test-= --testfile=
--testonservers --testservers= --tls-ca-file= --tls-certificate-file= --tls-key-file=
--tls-password= --tls-plugin= --tls-verify-peers= --trace-format= --traceclock= --tracer=
--unbufferedout --use-test-config-db --version --whitelist-binpath= -? -C= -L= -M= -N= -R -Rs= -a=
-b= -c= -d= -f= -fi= -h -i= -k= -l= -m= -p= -r= -s= -v`
	serverOptions73 = serverOptions71 + `
--authorization-public-key-file= --code-probes= --discover-kms-conn-url-file=
--kms-conn-get-blob-metadata-endpoint= --kms-conn-get-encryption-keys-endpoint=
--kms-conn-get-latest-encryption-keys-endpoint= --kms-conn-validation-token-details=
--kms-connector-type= --kms-rest-allow-not-secure-connection --new-cluster-key= --no-config-db
--trusted-subnet-= --use-future-protocol-version=`
	serverClasses71 = `backup blob_manager blob_worker cluster_controller commit_proxy coordinator data_distributor
encrypt_key_proxy fast_restore grv_proxy log master proxy ratekeeper resolution router stateless storage
storage_cache test transaction unset`
	serverClasses73 = serverClasses71 + ` consistency_scan sim_http_server`
)

// fdbserverRelease is what the fdbserver of one release accepts on its
// command line.
type fdbserverRelease struct {
	// Version is the release the facts were taken from.
	Version string
	// Options says, by option name as written in fdbserver's table (e.g.
	// --public-address, -C), whether the option takes a value; a name
	// ending in '-' is a prefix (--knob-, --locality-).
	Options map[string]bool
	// Classes are the values --class accepts.
	Classes []string

	// byName finds an option by its name as CSimpleOpt compares it
	// (normalizeOption), prefixes the prefix options among them.
	byName, prefixes map[string]string
}

// newRelease reads a compact table (see serverOptions71).
func newRelease(version, options, classes string) fdbserverRelease {
	table := map[string]bool{}
	for _, o := range strings.Fields(options) {
		name, value := strings.CutSuffix(o, "=")
		table[name] = value
	}
	sorted := strings.Fields(classes)
	sort.Strings(sorted)
	return release(version, table, sorted)
}

// release is the fdbserver of version with option table options and
// classes, indexed for lookup.
func release(version string, options map[string]bool, classes []string) fdbserverRelease {
	r := fdbserverRelease{Version: version, Options: options, Classes: classes, byName: map[string]string{}, prefixes: map[string]string{}}
	for o := range options {
		r.byName[normalizeOption(o)] = o
		if strings.HasSuffix(o, "-") {
			r.prefixes[normalizeOption(o)] = o
		}
	}
	return r
}

// fdbserverReleases are the fdbserver releases whose command line parser
// the provider knows, oldest first.
var fdbserverReleases = []fdbserverRelease{
	newRelease("7.1.67", serverOptions71, serverClasses71),
	newRelease("7.3.63", serverOptions73, serverClasses73),
}

// fdbserverFor is the known release whose parser an fdbserver of version
// parses with: the one of its major.minor; for another, the newest older
// one (FoundationDB adds options far more often than it removes them), or
// the oldest for a version older than all (or not a version at all).
func fdbserverFor(version string) fdbserverRelease {
	out := fdbserverReleases[0]
	v, err := fdb.ParseVersion(version)
	if err != nil {
		return out
	}
	for _, r := range fdbserverReleases {
		rv, _ := fdb.ParseVersion(r.Version) // the releases above are versions
		if rv.MajorMinor() == v.MajorMinor() {
			return r
		}
		if rv.Less(v) {
			out = r
		}
	}
	return out
}

// normalizeOption spells an option name as CSimpleOpt compares it with
// SO_O_HYPHEN_TO_UNDERSCORE: '-' and '_' after the leading dashes are the
// same, the number of leading dashes is not.
func normalizeOption(o string) string {
	rest := strings.TrimLeft(o, "-")
	return o[:len(o)-len(rest)] + strings.ReplaceAll(rest, "-", "_")
}

// lookup finds option name (without its value) as CSimpleOpt's
// LookupOption does with SO_O_EXACT: the entry of the same name, or a
// prefix entry (ending in '-') that name extends; it returns the entry.
func (r fdbserverRelease) lookup(name string) (string, bool) {
	n := normalizeOption(name)
	if o, ok := r.byName[n]; ok {
		return o, true
	}
	for p, o := range r.prefixes {
		if strings.HasPrefix(n, p) {
			return o, true
		}
	}
	return "", false
}

// Errors fdbserver prints for a command line it refuses (fdbserver.actor.cpp
// CLIOptions::parseArgsInternal and buildNetworkAddresses), with the
// release and the offending argument.
const (
	errServerUnknownOption = "fdbserver %s: unknown option: `%s'"
	errServerArgGiven      = "fdbserver %s: argument given for option `%s'"
	errServerArgMissing    = "fdbserver %s: missing argument for option `%s'"
	errServerArgInvalid    = "fdbserver %s: invalid argument to option `%s'"
	errServerPrefix        = "fdbserver %s: unable to parse %s"
	errServerClass         = "fdbserver %s: Unknown machine class `%s'"
	errServerSeeds         = "fdbserver %s: --seed-cluster-file and --seed-connection-string may not both be specified at once"
	errServerSeedNoFile    = "fdbserver %s: If -seed-cluster-file or --seed-connection-string is specified, -C must be specified as well"
	errServerListenCount   = "fdbserver %s: Listen addresses (if provided) should be equal to the number of public addresses in order"
	errServerAddressCount  = "fdbserver %s: maximum 2 public/listen addresses are allowed"
	errServerAddress       = "fdbserver %s: Could not parse network address `%s' (specify as IP_ADDRESS:PORT)"
	errServerTLSTwice      = "fdbserver %s: only one public address of each TLS state is allowed"
	errServerInvalidIP     = "fdbserver %s: %s is not a valid IP address"
)

// check refuses, with the error fdbserver prints, the arguments (argv
// without argv[0]) that this release's fdbserver would refuse to start
// with: an argument that is not an option of its table; an option that
// takes a value without one (a separate value may not start with '-'), or
// one that takes none with one; a prefix option whose key does not follow
// the prefix as fdbserver spells it (extractPrefixedArgument in flow's
// ArgParseUtil.h); a class fdbserver does not know; both seed options, or
// one without a cluster file; public addresses (--public_address, comma
// separated, every occurrence counting) that are more than two, two of the
// same TLS state, not as many as listen addresses given, or that
// NetworkAddress::parse (flow/network.cpp) refuses: an IPv6 address
// without brackets, for one. What a process does with values the parser
// accepts (a knob's name, a directory) is not checked.
func (r fdbserverRelease) check(args []string) error {
	var public, listen []string
	var clusterFile, seedFile, seedString bool
	for i := 0; i < len(args); i++ {
		name, value, given := strings.Cut(args[i], "=")
		option, ok := r.lookup(name)
		if !ok {
			return errors.Errorf(errServerUnknownOption, r.Version, name)
		}
		takes := r.Options[option]
		switch {
		case !takes && given:
			return errors.Errorf(errServerArgGiven, r.Version, option)
		case takes && !given && i+1 == len(args):
			return errors.Errorf(errServerArgMissing, r.Version, option)
		case takes && !given && strings.HasPrefix(args[i+1], "-"):
			return errors.Errorf(errServerArgInvalid, r.Version, option)
		case takes && !given:
			i++
			value = args[i]
		}
		if prefix, ok := strings.CutSuffix(option, "-"); ok {
			if rest, ok := strings.CutPrefix(name, prefix); !ok || rest == "" || rest[0] != '-' && rest[0] != '_' {
				return errors.Errorf(errServerPrefix, r.Version, name)
			}
		}
		switch option {
		case "--class", "-c":
			if !slices.Contains(r.Classes, value) {
				return errors.Errorf(errServerClass, r.Version, value)
			}
		case "--public-address", "-p":
			public = append(public, strings.Split(value, ",")...)
		case "--listen-address", "-l":
			listen = append(listen, strings.Split(value, ",")...)
		case "--cluster-file", "-C":
			clusterFile = true
		case "--seed-cluster-file":
			seedFile = true
		case "--seed-connection-string":
			seedString = true
		}
	}
	switch {
	case seedFile && seedString:
		return errors.Errorf(errServerSeeds, r.Version)
	case (seedFile || seedString) && !clusterFile:
		return errors.Errorf(errServerSeedNoFile, r.Version)
	case len(listen) > 0 && len(listen) != len(public):
		return errors.Errorf(errServerListenCount, r.Version)
	case len(public) > 2:
		return errors.Errorf(errServerAddressCount, r.Version)
	}
	tls := map[bool]bool{}
	for _, a := range public {
		port, auto := strings.CutPrefix(a, "auto:")
		if auto {
			a = "0.0.0.0:" + port
		}
		ip, secure, ok := parseNetworkAddress(a)
		switch {
		case !ok:
			return errors.Errorf(errServerAddress, r.Version, a)
		case ip.IsUnspecified() && !auto:
			return errors.Errorf(errServerInvalidIP, r.Version, a)
		case tls[secure]:
			return errors.Errorf(errServerTLSTwice, r.Version)
		}
		tls[secure] = true
	}
	for _, a := range listen {
		if _, _, ok := parseNetworkAddress(a); !ok {
			return errors.Errorf(errServerAddress, r.Version, a)
		}
	}
	return nil
}

// parseNetworkAddress parses an address as NetworkAddress::parse does
// (flow/network.cpp, the same at 7.1.67 and 7.3.63): "[IP]:PORT" with an
// IPv4 or IPv6 address in the brackets, or "A.B.C.D:PORT" without, either
// followed by ":tls"; it returns the IP and whether the address is TLS.
func parseNetworkAddress(s string) (ip net.IP, tls bool, ok bool) {
	s, _, _ = strings.Cut(s, "(fromHostname)")
	if len(s) > 4 {
		s, tls = strings.CutSuffix(s, ":tls")
	}
	if rest, bracketed := strings.CutPrefix(s, "["); bracketed {
		host, port, _ := strings.Cut(rest, "]:")
		ip = net.ParseIP(host)
		// std::stoi reads the port's leading digits and ignores the rest.
		return ip, tls, ip != nil && strings.Contains(rest, "]:") && digitsPrefix(port) > 0
	}
	host, port, _ := strings.Cut(s, ":")
	ip = net.ParseIP(host)
	return ip, tls, ip != nil && ip.To4() != nil && strings.Count(host, ".") == 3 && port != "" && digitsPrefix(port) == len(port)
}

// digitsPrefix is the number of decimal digits s starts with.
func digitsPrefix(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
