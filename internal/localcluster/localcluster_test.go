package localcluster_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/internal/localcluster"
)

// binDir makes a directory holding executables of the given names.
func binDir(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestFindBinaries(t *testing.T) {
	k8s := binDir(t, "etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl")
	kwok := binDir(t, "kwok", "kwokctl")
	cases := map[string]struct {
		path      string
		wantDirs  []string
		wantError string
	}{
		"BothDirectories":   {path: k8s + ":" + kwok, wantDirs: []string{k8s, kwok}},
		"KwokMissing":       {path: k8s, wantError: "cannot find kwok, kwokctl in"},
		"NothingConfigured": {path: "", wantError: "cannot find etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, kwok, kwokctl"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b, err := localcluster.FindBinaries(tc.path)
			if tc.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantError) {
					t.Fatalf("FindBinaries(%q): error %v, want one containing %q", tc.path, err, tc.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantDirs, b.Dirs()); diff != "" {
				t.Errorf("Dirs() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLookPath(t *testing.T) {
	first := binDir(t, "crossplane", "kwok")
	second := binDir(t, "crossplane")
	notExecutable := t.TempDir()
	if err := os.WriteFile(filepath.Join(notExecutable, "crossplane"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		path, name, want string
	}{
		"FirstDirectoryWins":    {path: first + ":" + second, name: "crossplane", want: filepath.Join(first, "crossplane")},
		"LaterDirectory":        {path: notExecutable + ":" + second, name: "crossplane", want: filepath.Join(second, "crossplane")},
		"NotExecutableIsAbsent": {path: notExecutable, name: "crossplane", want: ""},
		"Missing":               {path: second, name: "kwok", want: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, localcluster.LookPath(tc.path, tc.name)); diff != "" {
				t.Errorf("LookPath(%q, %q) (-want +got):\n%s", tc.path, tc.name, diff)
			}
		})
	}
}

func TestNodes(t *testing.T) {
	zones := localcluster.Zones(5)
	if diff := cmp.Diff([]string{"zone-a", "zone-b", "zone-c", "zone-d", "zone-e"}, zones); diff != "" {
		t.Errorf("Zones(5) (-want +got):\n%s", diff)
	}
	n := localcluster.Node("zone-c", 2, 1)
	got := []string{n.Name, n.Labels[localcluster.ZoneLabel], n.Spec.PodCIDR, n.Annotations["kwok.x-k8s.io/node"]}
	if diff := cmp.Diff([]string{"node-zone-c-1", "zone-c", "10.102.1.0/24", "fake"}, got); diff != "" {
		t.Errorf("Node (-want +got):\n%s", diff)
	}
}

func TestVolume(t *testing.T) {
	fast := "fast"
	cases := map[string]struct {
		class     *string
		zone      string
		wantClass string
		wantZones []string
	}{
		"DefaultClass": {class: nil, wantClass: ""},
		"NamedClass":   {class: &fast, wantClass: "fast"},
		"Zonal":        {class: ptr(localcluster.StorageClassName), zone: "zone-b", wantClass: "zonal", wantZones: []string{"zone-b"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			pvc := &corev1.PersistentVolumeClaim{
				ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "ns", UID: "u1"},
				Spec: corev1.PersistentVolumeClaimSpec{
					StorageClassName: tc.class,
					AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("16Gi")}},
				},
			}
			pv := localcluster.Volume(pvc, tc.zone)
			got := []string{pv.Name, pv.Spec.StorageClassName, pv.Spec.Capacity.Storage().String(), pv.Spec.ClaimRef.Namespace + "/" + pv.Spec.ClaimRef.Name, string(pv.Spec.ClaimRef.UID)}
			if diff := cmp.Diff([]string{"pvc-u1", tc.wantClass, "16Gi", "ns/data", "u1"}, got); diff != "" {
				t.Errorf("Volume (-want +got):\n%s", diff)
			}
			var zones []string
			if a := pv.Spec.NodeAffinity; a != nil {
				for _, term := range a.Required.NodeSelectorTerms {
					for _, e := range term.MatchExpressions {
						if e.Key == localcluster.ZoneLabel && e.Operator == corev1.NodeSelectorOpIn {
							zones = append(zones, e.Values...)
						}
					}
				}
			}
			if diff := cmp.Diff(tc.wantZones, zones); diff != "" {
				t.Errorf("Volume zones (-want +got):\n%s", diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
