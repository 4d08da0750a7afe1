// Package image checks the provider image against what the provider looks
// up in it. Nothing here can run docker, so the tests read the layout the
// Dockerfile declares (its ARG, FROM, ENV, COPY, RUN and USER
// instructions) and hold it to the FoundationDB lines the provider
// administers (version.FoundationDBLines): the connector finds the tools
// of each line where it looks for them, the native client is built against
// headers that exist and reaches a database of each line, and the image
// runs as a non-root user.
package image

import (
	"bufio"
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/bindings"
	"github.com/crossplane-contrib/provider-foundationdb/internal/version"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

const (
	// officialImage is FoundationDB's own image: its Dockerfile installs
	// fdbserver, fdbbackup, fdbcli, fdbmonitor, the tools' symlinks and
	// libfdb_c.so, and no headers (packaging/docker/Dockerfile, 7.1.67 and
	// 7.3.63, lines 87-110).
	officialImage = "foundationdb/foundationdb"
	// clientsStage unpacks the foundationdb-clients package of each release
	// in its FDB_RELEASES to /clients/<major.minor>/ (fetch-clients.sh).
	clientsStage = "clients"
	// envBinaryDir is where the provider looks for the tools, one
	// directory per major.minor (the --fdb-binary-dir flag's default).
	envBinaryDir = "FDB_BINARY_DIR"
)

// source is where a file of a stage comes from: a path in another stage
// or image.
type source struct {
	from, path string
}

// copied is one file or directory a COPY instruction puts at dest.
type copied struct {
	dest string
	src  source
}

// stage is one FROM of the Dockerfile and what it declares.
type stage struct {
	name, image string
	vars        map[string]string // ARG and ENV values in scope
	env         map[string]string
	copies      []copied
	runs        []string
	user        string
}

// file returns where path p of the stage comes from: the last COPY whose
// destination is p or a directory above it.
func (s *stage) file(p string) (source, bool) {
	for _, c := range slices.Backward(s.copies) {
		if p == c.dest || strings.HasPrefix(p, c.dest+"/") {
			return source{from: c.src.from, path: c.src.path + strings.TrimPrefix(p, c.dest)}, true
		}
	}
	return source{}, false
}

// dockerfile is the Dockerfile's stages, the last one the image.
type dockerfile struct {
	stages []*stage
}

// stage returns the stage named name, nil when none is.
func (d *dockerfile) stage(name string) *stage {
	for _, s := range d.stages {
		if s.name == name {
			return s
		}
	}
	return nil
}

// final is the stage the image is.
func (d *dockerfile) final() *stage { return d.stages[len(d.stages)-1] }

// imageOf returns the image a COPY --from names: a stage's base image, or
// the image itself.
func (d *dockerfile) imageOf(from string) string {
	if s := d.stage(from); s != nil {
		return s.image
	}
	return from
}

// lineOf returns the FoundationDB line (major.minor) of the release a
// source carries: the tag of the official image, or the directory of the
// clients stage it is under, which must hold a release of FDB_RELEASES;
// "" when it carries no known release.
func (d *dockerfile) lineOf(s source) string {
	image := d.imageOf(s.from)
	if tag, ok := strings.CutPrefix(image, officialImage+":"); ok {
		return majorMinor(tag)
	}
	st := d.stage(s.from)
	if st == nil || st.name != clientsStage {
		return ""
	}
	dir, _, _ := strings.Cut(strings.TrimPrefix(s.path, "/clients/"), "/")
	for _, release := range strings.Fields(st.vars["FDB_RELEASES"]) {
		if majorMinor(release) == dir {
			return dir
		}
	}
	return ""
}

// release returns the release of line the clients stage fetches, or the
// line's first release when it fetches none.
func (d *dockerfile) release(line string) string {
	if st := d.stage(clientsStage); st != nil {
		for _, r := range strings.Fields(st.vars["FDB_RELEASES"]) {
			if majorMinor(r) == line {
				return r
			}
		}
	}
	return line + ".0"
}

// majorMinor returns the major.minor of a release, "" when it is none.
func majorMinor(release string) string {
	v, err := fdb.ParseVersion(release)
	if err != nil {
		return ""
	}
	return v.MajorMinor()
}

// readDockerfile reads the instructions of the Dockerfile this test
// checks: ARG name[=value] (one per line, or several names without
// values), FROM image [AS name], ENV key=value, COPY [--from=stage] src...
// dest, RUN and USER; others are left out. Values expand ${VAR} and $VAR
// with the ARG and ENV values in scope (the global ARGs in FROM).
func readDockerfile(t *testing.T) *dockerfile {
	t.Helper()
	raw, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	d := &dockerfile{}
	global := map[string]string{}
	var s *stage
	var instruction string
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if instruction == "" && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if l, more := strings.CutSuffix(line, "\\"); more {
			instruction += l + " "
			continue
		}
		instruction += line
		keyword, rest, _ := strings.Cut(instruction, " ")
		instruction = ""
		rest = strings.TrimSpace(rest)
		vars := global
		if s != nil {
			vars = s.vars
		}
		expand := func(v string) string { return os.Expand(v, func(k string) string { return vars[k] }) }
		switch strings.ToUpper(keyword) {
		case "ARG":
			for _, a := range words(t, rest) {
				name, value, set := strings.Cut(a, "=")
				if !set {
					value = global[name]
				}
				vars[name] = expand(value)
			}
		case "FROM":
			f := strings.Fields(rest)
			s = &stage{image: expand(f[0]), vars: map[string]string{}, env: map[string]string{}}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				s.name = f[2]
			}
			d.stages = append(d.stages, s)
		case "ENV":
			for _, a := range words(t, rest) {
				k, v, _ := strings.Cut(a, "=")
				s.env[k], s.vars[k] = expand(v), expand(v)
			}
		case "COPY":
			var from string
			var paths []string
			for _, f := range strings.Fields(rest) {
				if v, ok := strings.CutPrefix(f, "--from="); ok {
					from = expand(v)
				} else if !strings.HasPrefix(f, "--") {
					paths = append(paths, expand(f))
				}
			}
			dest, srcs := paths[len(paths)-1], paths[:len(paths)-1]
			for _, src := range srcs {
				to := path.Clean(dest)
				if strings.HasSuffix(dest, "/") || len(srcs) > 1 {
					to = path.Join(dest, path.Base(src))
				}
				s.copies = append(s.copies, copied{dest: to, src: source{from: from, path: path.Clean(src)}})
			}
		case "RUN":
			s.runs = append(s.runs, expand(rest))
		case "USER":
			s.user = expand(rest)
		}
	}
	if len(d.stages) == 0 {
		t.Fatal("the Dockerfile has no FROM")
	}
	return d
}

// words splits the arguments of ARG and ENV at blanks outside double
// quotes, and drops the quotes: NAME="a b" is the word NAME=a b.
func words(t *testing.T, rest string) []string {
	t.Helper()
	var out []string
	var word strings.Builder
	quoted, started := false, false
	for _, r := range rest {
		switch {
		case r == '"':
			quoted, started = !quoted, true
		case !quoted && unicode.IsSpace(r):
			if started {
				out = append(out, word.String())
				word.Reset()
				started = false
			}
		default:
			word.WriteRune(r)
			started = true
		}
	}
	if quoted {
		t.Fatalf("cannot read %q: a quote is not closed", rest)
	}
	if started {
		out = append(out, word.String())
	}
	return out
}

// newest is the newest line the provider administers.
func newest() string { return version.FoundationDBLines[len(version.FoundationDBLines)-1] }

// stub is a tool that records the path it was run as and fails.
const stub = "#!/bin/sh\necho \"$0\" >> \"$STUB_LOG\"\nexit 1\n"

// TestImageHasTheToolsOfEverySupportedLine: for a cluster of each line the
// provider administers (of the release the image carries), the connector (ToolsFDB, the real backend) runs an
// fdbcli, fdbbackup and fdbrestore the image holds, of that line's release:
// a database speaks its own line's protocol, and an upgrade from 7.1 needs
// 7.1's fdbcli for the kill and 7.3's afterwards. Every file the image's
// last stage copies in is a stub tool under a temporary root; the test
// reads back which of them the connector ran.
func TestImageHasTheToolsOfEverySupportedLine(t *testing.T) {
	d := readDockerfile(t)
	img := d.final()
	binaryDir := img.env[envBinaryDir]
	if binaryDir == "" {
		t.Fatalf("the image sets no %s: the provider looks for the tools in its --fdb-binary-dir", envBinaryDir)
	}
	root := t.TempDir()
	for _, c := range img.copies {
		p := filepath.Join(root, c.dest)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	log := filepath.Join(t.TempDir(), "ran")
	t.Setenv("STUB_LOG", log)

	for _, line := range version.FoundationDBLines {
		t.Run(line, func(t *testing.T) {
			_ = os.Remove(log)
			cr := &v1alpha1.Cluster{Spec: v1alpha1.ClusterSpec{ForProvider: v1alpha1.ClusterParameters{Version: d.release(line)}}}
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "db"}, Data: map[string]string{workload.KeyClusterFile: "db:abc@10.0.0.1:4501"}}
			c, err := connector.ToolsFDB{BinaryDir: filepath.Join(root, binaryDir)}.Client(context.Background(), connector.Target{}, cr, cm, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			calls := map[string]error{}
			_, calls["fdbcli"] = c.Status(ctx)
			_, calls["fdbbackup"] = c.BackupStatus(ctx, "default")
			_, calls["fdbrestore"] = c.RestoreStatus(ctx, "default")

			raw, _ := os.ReadFile(log)
			ran := map[string]string{}
			for _, p := range strings.Fields(string(raw)) {
				ran[path.Base(p)] = "/" + filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
			}
			for _, tool := range []string{"fdbcli", "fdbbackup", "fdbrestore"} {
				p, ok := ran[tool]
				if !ok {
					t.Errorf("the connector ran no %s of %s in the image: %v", tool, line, calls[tool])
					continue
				}
				src, _ := img.file(p)
				if got := d.lineOf(src); got != line || path.Base(src.path) != tool {
					t.Errorf("the connector ran %s for %s, which the image copies from %s:%s (line %q), want the %s of a %s release",
						p, line, src.from, src.path, got, tool, line)
				}
			}
		})
	}
}

// TestImageBuildsAgainstTheClientsPackageHeaders: the stage that builds the
// provider with the tag fdb compiles the Go bindings against fdb_c.h and
// the headers it includes, which the official image does not ship (its
// Dockerfile installs binaries and libfdb_c only), and links libfdb_c. Both
// come from the newest line's foundationdb-clients package, which installs
// fdb_c.h, fdb_c_types.h, fdb_c_options.g.h and, from 7.3,
// fdb_c_apiversion.g.h under /usr/include/foundationdb
// (bindings/c/CMakeLists.txt, 7.1.67 and 7.3.63): the pinned bindings
// define FDB_API_VERSION 730, which 7.1's fdb_c.h refuses (#error above
// 710).
func TestImageBuildsAgainstTheClientsPackageHeaders(t *testing.T) {
	d := readDockerfile(t)
	var build *stage
	for _, s := range d.stages {
		if slices.ContainsFunc(s.runs, func(r string) bool { return strings.Contains(r, "go build") && strings.Contains(r, "-tags fdb") }) {
			build = s
		}
	}
	if build == nil {
		t.Fatal("no stage runs go build -tags fdb")
	}
	for _, f := range []string{"/usr/include/foundationdb/fdb_c.h", "/usr/lib/libfdb_c.so"} {
		src, ok := build.file(f)
		if !ok {
			t.Errorf("the build stage %q has no %s", build.name, f)
			continue
		}
		if image := d.imageOf(src.from); strings.HasPrefix(image, officialImage+":") && strings.HasPrefix(f, "/usr/include/") {
			t.Errorf("the build stage takes %s from %s, which ships no headers", f, image)
			continue
		}
		if got := d.lineOf(src); got != newest() {
			t.Errorf("the build stage takes %s from %s:%s (line %q), want the %s clients package", f, src.from, src.path, got, newest())
		}
	}
}

// TestImageClientReachesEverySupportedLine: the native client (package
// bindings) reaches a database of each line the provider administers. The
// library it is linked with, /usr/lib/libfdb_c.so, is the newest line's:
// a 7.1 library refuses the bindings' header version 730
// (fdb_select_api_version_impl, bindings/c/fdb_c.cpp@7.1.67:886-887). The
// multi-version client loads every file ending in .so in the external
// client directory (MultiVersionApi::addExternalLibraryDirectory,
// fdbclient/MultiVersionTransaction.actor.cpp@7.3.63:2846-2866): there is
// the library of every older line, named libfdb_c_<major.minor>.so as the
// official image names them (packaging/docker/Dockerfile@7.3.63:99-102),
// and not the newest line's, which the client has already
// (documentation/sphinx/source/api-general.rst@7.3.63:85). The directory is
// given to the client in its own setting, not in
// FDB_NETWORK_OPTION_EXTERNAL_CLIENT_DIRECTORY, which the tools would read.
func TestImageClientReachesEverySupportedLine(t *testing.T) {
	d := readDockerfile(t)
	img := d.final()
	if src, ok := img.file("/usr/lib/libfdb_c.so"); !ok {
		t.Errorf("the image has no /usr/lib/libfdb_c.so, the library the provider links")
	} else if d.lineOf(src) != newest() {
		t.Errorf("the image's /usr/lib/libfdb_c.so comes from %s:%s, want the %s release's", src.from, src.path, newest())
	}
	for _, k := range []string{"FDB_NETWORK_OPTION_EXTERNAL_CLIENT_DIRECTORY", "FDB_NETWORK_OPTION_EXTERNAL_CLIENT_LIBRARY", "FDB_NETWORK_OPTION_DISABLE_LOCAL_CLIENT"} {
		if v, ok := img.env[k]; ok {
			t.Errorf("the image sets %s=%s, which the tools the provider runs would read too", k, v)
		}
	}
	dir := img.env[bindings.EnvExternalClientDirectory]
	if dir == "" {
		t.Fatalf("the image sets no %s: the client reaches %s databases only", bindings.EnvExternalClientDirectory, newest())
	}
	for _, line := range version.FoundationDBLines[:len(version.FoundationDBLines)-1] {
		p := path.Join(dir, "libfdb_c_"+line+".so")
		src, ok := img.file(p)
		if !ok {
			t.Errorf("the image has no %s: the client cannot reach %s databases", p, line)
		} else if d.lineOf(src) != line || path.Base(src.path) != "libfdb_c.so" {
			t.Errorf("the image's %s comes from %s:%s, want the libfdb_c.so of a %s release", p, src.from, src.path, line)
		}
	}
	for _, c := range img.copies {
		if strings.HasPrefix(c.dest, dir+"/") && d.lineOf(c.src) == newest() {
			t.Errorf("the external client directory holds %s, of the %s line the linked library speaks", c.dest, newest())
		}
	}
}

// TestImageRunsAsNonRoot: the image is distroless and runs as a non-root
// user, as the restricted Pod Security Standard asks.
func TestImageRunsAsNonRoot(t *testing.T) {
	img := readDockerfile(t).final()
	if !strings.HasPrefix(img.image, "gcr.io/distroless/") {
		t.Errorf("the image is based on %s, want a distroless image", img.image)
	}
	if uid, _, _ := strings.Cut(img.user, ":"); uid == "" || uid == "0" || uid == "root" {
		t.Errorf("the image runs as user %q, want a non-root one", img.user)
	}
}
