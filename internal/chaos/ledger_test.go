package chaos

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// blockSize is how many consecutive seeds a ledger entry sums up: block b
// is seeds b*blockSize+1 to (b+1)*blockSize.
const blockSize = 100

// A ledger is a file of JSON lines, each the summary of a whole block of
// seeds, without traces beyond what a violation carries; "" keeps nothing.
// It is small enough to commit (about half a kilobyte a block), so a
// budget longer than a sitting runs on in later ones on the same code.
type ledger string

// A block is one line of a ledger.
type block struct {
	// Block numbers the seeds the line sums up.
	Block uint64
	Summary
}

func blockOf(seed uint64) uint64 { return (seed - 1) / blockSize }

// read returns the sum of the blocks the ledger keeps whole of seeds, and
// the seeds it has none of.
func (l ledger) read(t *testing.T, seeds []uint64) (kept Summary, rest []uint64) {
	t.Helper()
	kept = Summarize(nil)
	if l == "" {
		return kept, seeds
	}
	f, err := os.Open(string(l))
	if errors.Is(err, fs.ErrNotExist) {
		return kept, seeds
	}
	if err != nil {
		t.Fatalf("cannot read the chaos ledger: %v", err)
	}
	defer f.Close()
	blocks := map[uint64]Summary{}
	lines := bufio.NewScanner(f)
	lines.Buffer(nil, 1<<24)
	for lines.Scan() {
		var b block
		if err := json.Unmarshal(lines.Bytes(), &b); err != nil {
			t.Fatalf("cannot read the chaos ledger %s: %v", l, err)
		}
		blocks[b.Block] = b.Summary
	}
	if err := lines.Err(); err != nil {
		t.Fatalf("cannot read the chaos ledger %s: %v", l, err)
	}
	wanted := map[uint64]int{}
	for _, seed := range seeds {
		wanted[blockOf(seed)]++
	}
	for _, seed := range seeds {
		b := blockOf(seed)
		s, ok := blocks[b]
		if !ok || wanted[b] != blockSize {
			rest = append(rest, seed)
			continue
		}
		if seed == b*blockSize+1 {
			kept.Add(s)
		}
	}
	return kept, rest
}

// A tally collects the reports of a budget's run by block and writes each
// block to the ledger once all its seeds have run.
type tally struct {
	l      ledger
	wanted map[uint64]int
	got    map[uint64][]*Report
}

func (l ledger) tally(seeds []uint64) *tally {
	t := &tally{l: l, wanted: map[uint64]int{}, got: map[uint64][]*Report{}}
	for _, seed := range seeds {
		t.wanted[blockOf(seed)]++
	}
	return t
}

// add takes in rep; when its block is whole, the block's line is written.
func (t *tally) add(tb testing.TB, rep *Report) {
	tb.Helper()
	b := blockOf(rep.Seed)
	if t.l == "" || t.wanted[b] != blockSize {
		return
	}
	t.got[b] = append(t.got[b], rep)
	if len(t.got[b]) < blockSize {
		return
	}
	line, err := json.Marshal(block{Block: b, Summary: Summarize(t.got[b])})
	delete(t.got, b)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(string(t.l)), 0o755)
	}
	if err == nil {
		var f *os.File
		if f, err = os.OpenFile(string(t.l), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			_, err = f.Write(append(line, '\n'))
			err = errors.Join(err, f.Close())
		}
	}
	if err != nil {
		tb.Fatalf("cannot write the chaos ledger: %v", err)
	}
}

// TestLedgerKeepsWholeBlocks: only whole blocks are written, and a budget
// run again runs every seed of a block the ledger lacks.
func TestLedgerKeepsWholeBlocks(t *testing.T) {
	l := ledger(filepath.Join(t.TempDir(), "ledger", "code.jsonl"))
	var first []uint64
	for seed := uint64(1); seed <= 250; seed++ {
		first = append(first, seed)
	}
	tl := l.tally(first)
	for i := range first {
		seed := first[len(first)-1-i] // reports arrive in any order
		rep := &Report{Seed: seed, Workload: "w", Steps: 2, Checks: 3, Faults: map[string]int{"F": 1}}
		if seed == 150 {
			rep.Violations = []Violation{{Seed: seed, Check: "C"}}
		}
		tl.add(t, rep)
	}
	var again []uint64
	for seed := uint64(1); seed <= 300; seed++ {
		again = append(again, seed)
	}
	kept, rest := l.read(t, again)
	want := Summary{Seeds: 200, Steps: 400, Checks: 600, Faults: map[string]int{"F": 200},
		ByWorkload: map[string][2]int{"w": {200, 1}}, Violations: []Violation{{Seed: 150, Check: "C"}}}
	if diff := cmp.Diff(want, kept); diff != "" {
		t.Errorf("kept: -want +got:\n%s", diff)
	}
	if len(rest) != 100 || rest[0] != 201 || rest[99] != 300 {
		t.Errorf("rest: want seeds 201 to 300, got %d seeds %v", len(rest), rest)
	}
	if _, rest := l.read(t, again[:150]); len(rest) != 50 {
		t.Errorf("a budget with part of a block runs that part: want 50 seeds to run, got %d", len(rest))
	}
}
