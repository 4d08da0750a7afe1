package version

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEveryLineHasAMinimumPatch holds MinimumPatch to FoundationDBLines: a
// line without a minimum would accept versions whose monitor the provider
// cannot drive, a minimum without a line would be a rule for nothing.
func TestEveryLineHasAMinimumPatch(t *testing.T) {
	var lines []string
	for line := range MinimumPatch {
		lines = append(lines, line)
	}
	sort.Strings(lines)
	want := append([]string{}, FoundationDBLines...)
	sort.Strings(want)
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("MinimumPatch lines (-FoundationDBLines +MinimumPatch):\n%s", diff)
	}
}
