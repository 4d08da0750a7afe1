package coordination

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// call is one command a fake exec ran.
type call struct {
	Pod     string
	Command []string
	Stdin   string
}

// fakeExec records the commands and answers a cat of a path with files[path].
type fakeExec struct {
	calls []call
	files map[string]string
	fail  string // a pod whose commands fail
}

func (f *fakeExec) run(_ context.Context, _, pod, _ string, command []string, stdin io.Reader) (string, string, error) {
	c := call{Pod: pod, Command: command}
	if stdin != nil {
		b, _ := io.ReadAll(stdin)
		c.Stdin = string(b)
	}
	f.calls = append(f.calls, c)
	if pod == f.fail {
		return "", "sh: permission denied", errors.New("command terminated with exit code 1")
	}
	if command[0] == "cat" {
		return f.files[command[1]], "", nil
	}
	return "", "", nil
}

func pod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "foundationdb"}}},
	}
}

func TestExec(t *testing.T) {
	files := map[string]string{"/var/fdb/data/1/coordination-0.fdq": "state-0", "/var/fdb/data/1/coordination-1.fdq": "state-1"}
	write := func(target string) []string {
		return []string{"sh", "-c", `cat > "$1.tmp" && mv "$1.tmp" "$1"`, "sh", target}
	}
	cases := map[string]struct {
		reason  string
		run     func(e Exec) error
		fail    string
		want    []call
		wantErr string
	}{
		"Copy": {
			reason: "Each file is read from the survivor's process and written to the new coordinator's process, content on stdin.",
			run: func(e Exec) error {
				return e.CopyCoordinationFiles(context.Background(), Process{Pod: pod("db-log-1"), Number: 1}, Process{Pod: pod("db-storage-2"), Number: 2})
			},
			want: []call{
				{Pod: "db-log-1", Command: []string{"cat", "/var/fdb/data/1/coordination-0.fdq"}},
				{Pod: "db-storage-2", Command: write("/var/fdb/data/2/coordination-0.fdq"), Stdin: "state-0"},
				{Pod: "db-log-1", Command: []string{"cat", "/var/fdb/data/1/coordination-1.fdq"}},
				{Pod: "db-storage-2", Command: write("/var/fdb/data/2/coordination-1.fdq"), Stdin: "state-1"},
			},
		},
		"CopyNothing": {
			reason: "A survivor without the files is an error: an empty file copied would be a blank coordinator.",
			run: func(e Exec) error {
				return e.CopyCoordinationFiles(context.Background(), Process{Pod: pod("db-log-1"), Number: 3}, Process{Pod: pod("db-storage-2"), Number: 1})
			},
			want:    []call{{Pod: "db-log-1", Command: []string{"cat", "/var/fdb/data/3/coordination-0.fdq"}}},
			wantErr: "cannot copy the coordination files from pod db-log-1 to pod db-storage-2: coordination-0.fdq is empty",
		},
		"Restart": {
			reason: "The pod's cluster file gets the connection string, and its fdbservers are killed.",
			run:    func(e Exec) error { return e.RestartOn(context.Background(), pod("db-log-2"), "db:abc@10.0.0.1:4501") },
			want: []call{{Pod: "db-log-2", Command: []string{"sh", "-c", `printf '%s\n' "$1" > "$2.tmp" && mv "$2.tmp" "$2" && { pkill -x fdbserver || true; }`,
				"sh", "db:abc@10.0.0.1:4501", "/var/fdb/data/fdb.cluster"}}},
		},
		"RestartFails": {
			reason: "A failed command is an error naming the pod and what the container said.",
			run:    func(e Exec) error { return e.RestartOn(context.Background(), pod("db-log-2"), "db:abc@10.0.0.1:4501") },
			fail:   "db-log-2",
			want: []call{{Pod: "db-log-2", Command: []string{"sh", "-c", `printf '%s\n' "$1" > "$2.tmp" && mv "$2.tmp" "$2" && { pkill -x fdbserver || true; }`,
				"sh", "db:abc@10.0.0.1:4501", "/var/fdb/data/fdb.cluster"}}},
			wantErr: "cannot restart the fdbservers of pod db-log-2 on the new cluster file: sh: permission denied: command terminated with exit code 1",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := &fakeExec{files: files, fail: tc.fail}
			err := tc.run(Exec{Run: f.run})
			if diff := cmp.Diff(tc.want, f.calls); diff != "" {
				t.Errorf("\n%s\ncommands: -want, +got:\n%s", tc.reason, diff)
			}
			got := ""
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, tc.wantErr) || (tc.wantErr == "") != (err == nil) {
				t.Errorf("\n%s\nerror %q, want %q", tc.reason, got, tc.wantErr)
			}
		})
	}
}
