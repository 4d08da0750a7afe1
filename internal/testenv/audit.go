package testenv

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"
)

// auditPolicy is what the API server audits: the deletions of pods, volume
// claims and volumes, once each completed; nothing else.
var auditPolicy = auditv1.Policy{
	TypeMeta:   metav1.TypeMeta{APIVersion: auditv1.SchemeGroupVersion.String(), Kind: "Policy"},
	OmitStages: []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseStarted},
	Rules: []auditv1.PolicyRule{
		{Level: auditv1.LevelMetadata, Verbs: []string{"delete", "deletecollection"},
			Resources: []auditv1.GroupResources{{Group: corev1.GroupName, Resources: []string{"pods", "persistentvolumeclaims", "persistentvolumes"}}}},
		{Level: auditv1.LevelNone},
	},
}

// audit makes the API server of env write its audit log, under auditPolicy,
// to a file in dir, which it returns. The log backend blocks each request
// until its event is written, so a deletion is in the log by the time its
// request returns.
func audit(env *envtest.Environment, dir string) (string, error) {
	policy, err := yaml.Marshal(auditPolicy)
	if err != nil {
		return "", fmt.Errorf("cannot write the audit policy: %w", err)
	}
	policyFile, log := filepath.Join(dir, "audit-policy.yaml"), filepath.Join(dir, "audit.log")
	if err := os.WriteFile(policyFile, policy, 0o600); err != nil {
		return "", fmt.Errorf("cannot write the audit policy: %w", err)
	}
	args := env.ControlPlane.GetAPIServer().Configure()
	args.Set("audit-policy-file", policyFile)
	args.Set("audit-log-path", log)
	args.Set("audit-log-mode", "blocking")
	args.Set("audit-log-format", "json")
	return log, nil
}

// An AuditReader reads an API server's audit log from where it last
// stopped.
type AuditReader struct {
	path   string
	offset int64
}

// NewAuditReader reads the audit log at path from its end now: the events
// written from now on.
func NewAuditReader(path string) (*AuditReader, error) {
	fi, err := os.Stat(path)
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("cannot read the audit log: %w", err)
	}
	a := &AuditReader{path: path}
	if fi != nil {
		a.offset = fi.Size()
	}
	return a, nil
}

// Next returns the events written since the last call, whole lines only.
func (a *AuditReader) Next() ([]auditv1.Event, error) {
	f, err := os.Open(a.path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the audit log: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(a.offset, io.SeekStart); err != nil {
		return nil, fmt.Errorf("cannot read the audit log: %w", err)
	}
	var out []auditv1.Event
	lines := bufio.NewReader(f)
	for {
		line, err := lines.ReadBytes('\n')
		if err != nil {
			// A line without its newline is still being written.
			return out, nil
		}
		a.offset += int64(len(line))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var ev auditv1.Event
		if err := json.Unmarshal(line, &ev); err != nil {
			return out, fmt.Errorf("cannot read the audit log: %w", err)
		}
		out = append(out, ev)
	}
}
