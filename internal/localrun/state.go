package localrun

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// state is the directory one run keeps everything in: kwokctl's work
// directory, the provider binary, kubeconfig and log, and the pid files
// that let a later `make stop` find what a killed run left behind.
type state string

func (s state) path(elem ...string) string {
	return filepath.Join(append([]string{string(s)}, elem...)...)
}

func (s state) kwokDir() string            { return s.path("kwok") }
func (s state) providerBin() string        { return s.path("bin", "provider") }
func (s state) providerLog() string        { return s.path("provider.log") }
func (s state) providerKubeconfig() string { return s.path("provider.kubeconfig") }
func (s state) clusterLog() string         { return s.path("kwokctl.log") }
func (s state) runPIDFile() string         { return s.path("run.pid") }
func (s state) providerPIDFile() string    { return s.path("provider.pid") }

// Crossplane core and the composition function, when the run has them
// (StartCrossplane).
func (s state) functionBin() string        { return s.path("bin", "function") }
func (s state) functionLog() string        { return s.path("function.log") }
func (s state) functionPIDFile() string    { return s.path("function.pid") }
func (s state) functionCerts() string      { return s.path("tls", "function") }
func (s state) crossplaneLog() string      { return s.path("crossplane.log") }
func (s state) crossplanePIDFile() string  { return s.path("crossplane.pid") }
func (s state) crossplaneCerts() string    { return s.path("tls", "crossplane") }
func (s state) crossplanePackages() string { return s.path("xpkg") }

// writePID records a process id with the process's start time, so that a
// later reader never mistakes another process that got the same id for it.
func writePID(file string, pid int) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return fmt.Errorf("cannot create state directory: %w", err)
	}
	if err := os.WriteFile(file, []byte(fmt.Sprintf("%d %s\n", pid, startTime(pid))), 0o644); err != nil {
		return fmt.Errorf("cannot write pid file: %w", err)
	}
	return nil
}

// readPID returns the id of the process a pid file names if that process
// still runs; 0 otherwise.
func readPID(file string) int {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || !alive(pid) || startTime(pid) != f[1] {
		return 0
	}
	return pid
}

// startTime is a process's start time in clock ticks since boot (field 22
// of /proc/PID/stat), or "" when the process does not exist.
func startTime(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// alive reports whether a process with this id exists and is not a zombie.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// Processes lists the processes whose command line mentions dir: everything
// a run started runs a binary under its state directory or names a file in
// it, so this finds them however they were started. The caller's own
// process is never listed.
func Processes(dir string) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("cannot list processes: %w", err)
	}
	needle := []byte(filepath.Clean(dir) + "/")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue // gone meanwhile
		}
		if bytes.Contains(cmdline, needle) {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}
