package certs

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCheck: a certificate Secret serves when it has its three keys, the
// key is the certificate's, a trusted CA issued it and it is valid now;
// each other case is told apart by its error.
func TestCheck(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	year := For(now, 365*24*time.Hour)
	ca, err := NewCA("ca", year)
	if err != nil {
		t.Fatal(err)
	}
	next, err := NewCA("next ca", year)
	if err != nil {
		t.Fatal(err)
	}
	issue := func(by *CA, v Validity) map[string][]byte {
		t.Helper()
		d, err := by.Issue("db", v, Peer)
		if err != nil {
			t.Fatal(err)
		}
		d[KeyCA] = ca.PEM
		return d
	}
	good := issue(ca, year)
	other := issue(ca, year)
	without := func(k string) map[string][]byte {
		d := map[string][]byte{KeyCA: good[KeyCA], KeyCert: good[KeyCert], KeyKey: good[KeyKey]}
		delete(d, k)
		return d
	}
	cases := map[string]struct {
		data  map[string][]byte
		extra []string
		want  error
	}{
		"Serves":             {data: good},
		"NoKey":              {data: without(KeyKey), want: ErrMissingKey},
		"NoCA":               {data: without(KeyCA), want: ErrMissingKey},
		"KeyOfAnotherCert":   {data: map[string][]byte{KeyCA: ca.PEM, KeyCert: good[KeyCert], KeyKey: other[KeyKey]}, want: ErrMalformed},
		"Expired":            {data: issue(ca, Validity{NotBefore: now.Add(-48 * time.Hour), NotAfter: now.Add(-time.Hour)}), want: ErrExpired},
		"NotYetValid":        {data: issue(ca, Validity{NotBefore: now.Add(time.Hour), NotAfter: now.Add(48 * time.Hour)}), want: ErrExpired},
		"IssuedByAnotherCA":  {data: issue(next, year), want: ErrUntrusted},
		"IssuedByATrustedCA": {data: issue(next, year), extra: []string{string(next.PEM)}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Check(tc.data, tc.extra, now)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Errorf("Check(...): %v, want %v", err, tc.want)
			}
			if key := string(tc.data[KeyKey]); err != nil && key != "" && strings.Contains(err.Error(), key) {
				t.Error("Check(...): the error holds the key")
			}
		})
	}
}

// TestBundle: a CA file holds each CA once, the Secret's first.
func TestBundle(t *testing.T) {
	v := For(time.Now(), time.Hour)
	a, err := NewCA("a", v)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewCA("b", v)
	if err != nil {
		t.Fatal(err)
	}
	got := string(Bundle(a.PEM, []string{string(b.PEM), string(a.PEM)}))
	if diff := cmp.Diff(string(a.PEM)+string(b.PEM), got); diff != "" {
		t.Errorf("Bundle(...): -want, +got:\n%s", diff)
	}
}
