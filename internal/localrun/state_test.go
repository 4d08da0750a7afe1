package localrun

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPIDFile(t *testing.T) {
	dir := t.TempDir()
	own := filepath.Join(dir, "own.pid")
	if err := writePID(own, os.Getpid()); err != nil {
		t.Fatal(err)
	}
	reused := filepath.Join(dir, "reused.pid")
	// The same id with another start time: a process that reused the id.
	if err := os.WriteFile(reused, []byte("1 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{"own": readPID(own), "reused": readPID(reused), "missing": readPID(filepath.Join(dir, "none"))}
	if diff := cmp.Diff(map[string]int{"own": os.Getpid(), "reused": 0, "missing": 0}, got); diff != "" {
		t.Errorf("readPID (-want +got):\n%s", diff)
	}
}

func TestProcesses(t *testing.T) {
	dir := t.TempDir()
	// A copy of sleep under dir, run directly: one process whose command
	// line names dir. (A shell given a marker argument forks its command,
	// and the fork carries the shell's command line until it execs: a
	// second process, now and then.)
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	marked := filepath.Join(dir, "sleep")
	if err := os.WriteFile(marked, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(marked, "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The child's command line is its own only once it has exec'd.
	var pids []int
	for deadline := time.Now().Add(10 * time.Second); len(pids) == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var err error
		if pids, err = Processes(dir); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]int{cmd.Process.Pid}, pids); diff != "" {
		t.Errorf("Processes before stopping (-want +got):\n%s", diff)
	}
	if err := stopProcess(cmd.Process.Pid, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if pids, _ := Processes(dir); len(pids) != 0 {
		t.Errorf("Processes after stopping: %v", pids)
	}
}
