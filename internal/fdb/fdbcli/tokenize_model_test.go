package fdbcli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTokenizerModel checks the model of the tools' parseLine against what
// their sources say of it: fdbcli's `help escaping` text, the examples of
// the review (regions JSON, a whole-key-space -k), and the differences
// between fdbcli 7.1, fdbcli 7.3 and fdbbackup.
func TestTokenizerModel(t *testing.T) {
	cases := map[string]struct {
		line    string
		d       dialect
		want    [][]string
		invalid bool
	}{
		// fdbcli `help escaping` (fdbcli.actor.cpp, 7.1.67 and 7.3.63).
		"QuotedSpace":     {line: `set "hello world"`, d: fdbcli71, want: [][]string{{"set", "hello world"}}},
		"EscapedSpace":    {line: `set hello\ world`, d: fdbcli71, want: [][]string{{"set", "hello world"}}},
		"HexSpace":        {line: `set hello\x20world`, d: fdbcli71, want: [][]string{{"set", "hello world"}}},
		"EscapedQuotes":   {line: `set \"hello\ world\"`, d: fdbcli71, want: [][]string{{"set", `"hello world"`}}},
		"UnicodeIn73":     {line: `set a\u00FFb`, d: fdbcli73, want: [][]string{{"set", "a\xffb"}}},
		"UnicodeNotIn71":  {line: `set a\u00FFb`, d: fdbcli71, want: [][]string{{"set"}}, invalid: true},
		"UnicodeTooLarge": {line: `set \u0100`, d: fdbcli73, want: [][]string{{"set"}}, invalid: true},
		"UnknownEscape":   {line: `kill; kill \q`, d: fdbcli73, want: [][]string{{"kill"}, {"kill"}}, invalid: true},
		"OpenQuote":       {line: `set "a b`, d: fdbcli73, want: [][]string{{"set", "a b"}}, invalid: true},
		"Commands":        {line: "kill; kill 10.1.0.1:4501  10.1.0.2:4501;sleep 5", d: fdbcli73, want: [][]string{{"kill"}, {"kill", "10.1.0.1:4501", "10.1.0.2:4501"}, {"sleep", "5"}}},
		"CliTabs":         {line: "a\tb\nc", d: fdbcli73, want: [][]string{{"a", "b", "c"}}},
		"QuotedSemicolon": {line: `a "b;c"`, d: fdbcli73, want: [][]string{{"a", "b;c"}}},
		// Review B4: raw JSON loses its quotes.
		"RawJSON": {line: `configure regions=[{"datacenters":[{"id":"dc1","priority":1}]}]`, d: fdbcli73,
			want: [][]string{{"configure", "regions=[{datacenters:[{id:dc1,priority:1}]}]"}}},
		"EscapedJSON": {line: `configure regions=[{\"datacenters\":[{\"id\":\"dc1\"}]}]`, d: fdbcli71,
			want: [][]string{{"configure", `regions=[{"datacenters":[{"id":"dc1"}]}]`}}},
		// Review B6: a leading blank is skipped, the empty key is lost.
		"BlankBeginKey":              {line: ` \xff`, d: fdbbackupDialect, want: [][]string{{"\xff"}}},
		"QuotedBeginKey":             {line: `"" \xff`, d: fdbbackupDialect, want: [][]string{{"", "\xff"}}},
		"BackupTabs":                 {line: "a\tb c", d: fdbbackupDialect, want: [][]string{{"a\tb", "c"}}},
		"BackupEmptyBeforeSemicolon": {line: `"";a`, d: fdbbackupDialect, want: [][]string{nil, {"a"}}},
		"CliEmptyBeforeSemicolon":    {line: `"";a`, d: fdbcli73, want: [][]string{{""}, {"a"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := tokenize(tc.line, tc.d)
			if diff := cmp.Diff(tc.want, got.commands); diff != "" {
				t.Errorf("commands (-want +got):\n%s", diff)
			}
			if invalid := got.malformed || got.partial; invalid != tc.invalid {
				t.Errorf("malformed or partial = %v, want %v", invalid, tc.invalid)
			}
		})
	}
}

// TestKeyRangeModel: what fdbbackup and fdbrestore make of -k values.
func TestKeyRangeModel(t *testing.T) {
	teaser := "Try `fdbrestore --help' for more information.\n"
	cases := map[string]struct {
		value       string
		wantRanges  [][2]string
		wantFailure string
	}{
		"Range":          {value: "a m", wantRanges: [][2]string{{"a", "m"}}},
		"Prefix":         {value: `a\xff`, wantRanges: [][2]string{{"a\xff", "b"}}},
		"WholeKeySpace":  {value: `"" \xff`, wantRanges: [][2]string{{"", "\xff"}}},
		"BlankBeginKey":  {value: ` \xff`, wantFailure: teaser},
		"Inverted":       {value: "m a", wantFailure: "ERROR: Invalid key range `m a' reported error Range begin key larger than end key\n" + teaser},
		"ThreeKeys":      {value: "a b c", wantFailure: "ERROR: Invalid key range identified with 3 keys" + teaser},
		"Nothing":        {value: "", wantRanges: nil},
		"MalformedTaken": {value: `a \q`, wantRanges: [][2]string{{"a", "b"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := keyRanges("fdbrestore", tc.value)
			if diff := cmp.Diff(keyRangeResult{ranges: tc.wantRanges, failure: tc.wantFailure}, got, cmp.AllowUnexported(keyRangeResult{})); diff != "" {
				t.Errorf("-k %q (-want +got):\n%s", tc.value, diff)
			}
		})
	}
}
