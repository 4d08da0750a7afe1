package plan

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// zonesSaid finds "across <n> zones" in a manifest's comments.
var zonesSaid = regexp.MustCompile(`across (\w+) zones`)

var numbers = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}

// TestExamplesPromiseTheZonesCoordinatorsNeed checks that a Cluster example
// that says how many zones it spreads across names no fewer than its
// coordinators need, one zone each (RulesFor): a user who believes it
// bootstraps a cluster that waits for good ("cannot choose coordinators").
func TestExamplesPromiseTheZonesCoordinatorsNeed(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	checked := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m := zonesSaid.FindStringSubmatch(string(raw))
		if m == nil || !strings.Contains(string(raw), "kind: Cluster\n") {
			continue
		}
		c := &v1alpha1.Cluster{}
		if err := yaml.Unmarshal(raw, c); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		need := RulesFor(fdb.RedundancyMode(c.Spec.ForProvider.DatabaseConfiguration.RedundancyMode), 1).Count
		if said := numbers[m[1]]; said < need {
			t.Errorf("%s says %q, but %s redundancy needs %d coordinators in distinct zones", filepath.Base(f), m[0], c.Spec.ForProvider.DatabaseConfiguration.RedundancyMode, need)
		}
		checked++
	}
	if checked == 0 {
		t.Error("no Cluster example says how many zones it spreads across")
	}
}
