package chaos

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// A ledger is the directory that keeps the report of each seed run, one
// file a seed, without its trace; "" keeps nothing.
type ledger string

// read returns the reports the ledger keeps of seeds, and the seeds it
// has none of.
func (l ledger) read(t *testing.T, seeds []uint64) (kept []*Report, rest []uint64) {
	t.Helper()
	if l == "" {
		return nil, seeds
	}
	for _, seed := range seeds {
		b, err := os.ReadFile(l.file(seed))
		if errors.Is(err, fs.ErrNotExist) {
			rest = append(rest, seed)
			continue
		}
		if err != nil {
			t.Fatalf("cannot read the chaos ledger: %v", err)
		}
		rep := &Report{}
		if err := json.Unmarshal(b, rep); err != nil {
			t.Fatalf("cannot read the chaos ledger's %s: %v", l.file(seed), err)
		}
		kept = append(kept, rep)
	}
	return kept, rest
}

// write keeps rep, without its trace.
func (l ledger) write(t *testing.T, rep *Report) {
	t.Helper()
	if l == "" {
		return
	}
	keep := *rep
	keep.Lines = nil
	b, err := json.Marshal(keep)
	if err == nil {
		err = os.MkdirAll(string(l), 0o755)
	}
	if err == nil {
		err = os.WriteFile(l.file(rep.Seed), b, 0o644)
	}
	if err != nil {
		t.Fatalf("cannot write the chaos ledger: %v", err)
	}
}

func (l ledger) file(seed uint64) string {
	return filepath.Join(string(l), strconv.FormatUint(seed, 10)+".json")
}
