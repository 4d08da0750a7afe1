// Package defaults holds the built-in SafetyPolicies. They apply to every
// cluster, so a fresh install is safe with no SafetyPolicy objects; a
// SafetyPolicy object of the same name replaces one.
package defaults

import (
	"embed"
	"io/fs"
	"sync"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

const errLoadDefault = "cannot load default SafetyPolicy %s"

//go:embed *.yaml
var manifests embed.FS

var load = sync.OnceValues(func() ([]policy.Policy, error) {
	files, err := fs.Glob(manifests, "*.yaml")
	if err != nil {
		return nil, err
	}
	out := make([]policy.Policy, 0, len(files))
	for _, f := range files {
		b, err := manifests.ReadFile(f)
		if err != nil {
			return nil, errors.Wrapf(err, errLoadDefault, f)
		}
		p, err := policy.ParseBuiltin(b)
		if err != nil {
			return nil, errors.Wrapf(err, errLoadDefault, f)
		}
		out = append(out, p)
	}
	return out, nil
})

// Policies returns the built-in policies, sorted by file name (each file is
// named after its policy).
func Policies() ([]policy.Policy, error) {
	return load()
}

// Has reports whether name is the name of a built-in policy.
func Has(name string) bool {
	_, err := fs.Stat(manifests, name+".yaml")
	return err == nil
}
