package fdbcli

import (
	"strconv"
	"strings"
)

// This file models the tokenizers of the real tools: what fdbcli makes of
// an --exec string and what fdbbackup and fdbrestore make of a -k value.
// Both are a function parseLine of their own (fdbcli/fdbcli.actor.cpp and
// fdbbackup/backup.actor.cpp at 7.1.67 and 7.3.63), alike but not the
// same. The model lives with the tests, not in the client: the client only
// writes words (word, script), which any string has, and never needs to
// read them back; the tests and the emulator judge what it wrote by what
// the tools would read.

// A dialect is one tool's parseLine.
type dialect struct {
	// blanks separate words outside quotes.
	blanks string
	// unicode: \uNNNN (at most \u00FF) is an escape, as in fdbcli 7.3;
	// fdbcli 7.1 and fdbbackup take it as a malformed escape.
	unicode bool
	// emptyAtSemicolon: a word made only of quotes ("") before a `;` is a
	// word (fdbcli); fdbbackup drops it.
	emptyAtSemicolon bool
}

var (
	// fdbcli71 is fdbcli's parseLine at 7.1.67: blanks are space, tab,
	// newline and carriage return; escapes \" \\ \  \; and \xNN.
	fdbcli71 = dialect{blanks: " \t\n\r", emptyAtSemicolon: true}
	// fdbcli73 is fdbcli's parseLine at 7.3.63: 7.1's and \uNNNN, for
	// JSON strings, as one byte.
	fdbcli73 = dialect{blanks: " \t\n\r", unicode: true, emptyAtSemicolon: true}
	// fdbbackupDialect is the parseLine of fdbbackup and fdbrestore, the
	// same at 7.1.67 and 7.3.63: only the space is a blank.
	fdbbackupDialect = dialect{blanks: " "}
)

// cliDialect is fdbcli's dialect of release majorMinor.
func cliDialect(majorMinor string) dialect {
	if majorMinor == "7.1" {
		return fdbcli71
	}
	return fdbcli73
}

// A parsed line is what parseLine returns: commands (split at `;`
// outside quotes), each a list of words.
type parsed struct {
	commands [][]string
	// malformed: an escape was not one the tool knows; parsing stopped
	// there, the word being read is lost, the command so far is the last.
	malformed bool
	// partial: a quote was still open at the end of the line.
	partial bool
}

// tokenize reads line the way dialect d's parseLine does:
//
//   - leading spaces, and spaces after a `;`, are skipped;
//   - outside quotes a blank ends a word and a `;` ends a word and a
//     command; runs of blanks make no empty words;
//   - `"` opens or closes a quote and is removed; a word that had one is a
//     word even when empty (`""` is the empty word);
//   - inside quotes blanks and `;` are part of the word;
//   - a backslash, inside quotes or not, escapes `"`, `\`, a space or `;`
//     (the byte itself), or gives the byte \xNN (two hex digits) or, in
//     fdbcli 7.3, \uNNNN up to 00FF; anything else is malformed.
func tokenize(line string, d dialect) parsed {
	var (
		out     parsed
		command []string
		word    []byte
		forced  bool // the word had a quote: it is a word even when empty
		quoted  bool
	)
	endWord := func(keepEmpty bool) {
		if len(word) > 0 || (forced && keepEmpty) {
			command = append(command, string(word))
		}
		word, forced = nil, false
	}
	i := skipSpaces(line, 0)
	for i < len(line) {
		c := line[i]
		switch {
		case c == '"':
			quoted, forced = !quoted, true
			i++
		case c == '\\':
			b, n, ok := unescape(line[i:], d)
			if !ok {
				out.commands, out.malformed = append(out.commands, command), true
				return out
			}
			word = append(word, b)
			i += n
		case quoted:
			word = append(word, c)
			i++
		case c == ';':
			endWord(d.emptyAtSemicolon)
			out.commands, command = append(out.commands, command), nil
			i = skipSpaces(line, i+1)
		case strings.IndexByte(d.blanks, c) >= 0:
			endWord(true)
			i++
		default:
			word = append(word, c)
			i++
		}
	}
	endWord(true)
	out.commands, out.partial = append(out.commands, command), quoted
	return out
}

// skipSpaces returns the index of the first byte at or after i that is not
// a space.
func skipSpaces(line string, i int) int {
	for i < len(line) && line[i] == ' ' {
		i++
	}
	return i
}

// unescape reads the escape s starts with: the byte it stands for and its
// length, or ok false for a malformed one.
func unescape(s string, d dialect) (b byte, n int, ok bool) {
	if len(s) < 2 {
		return 0, 0, false
	}
	switch s[1] {
	case '"', '\\', ' ', ';':
		return s[1], 2, true
	case 'x':
		return hexByte(s, 2)
	case 'u':
		if d.unicode {
			return hexByte(s, 4)
		}
	}
	return 0, 0, false
}

// hexByte reads the digits hex digits after s's two-byte escape prefix as
// one byte.
func hexByte(s string, digits int) (byte, int, bool) {
	if len(s) < 2+digits {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(s[2:2+digits], 16, 16)
	if err != nil || v > 0xff {
		return 0, 0, false
	}
	return byte(v), 2 + digits, true
}

// A keyRangeResult is what fdbbackup and fdbrestore make of one -k value
// (addKeyRange, fdbbackup/backup.actor.cpp at 7.1.67 and 7.3.63), which
// ignores a malformed escape or an open quote and takes the words read.
type keyRangeResult struct {
	// ranges are the raw key ranges added, begin and end.
	ranges [][2]string
	// failure is what the tool prints on stderr before it exits 1, ""
	// when the value is accepted.
	failure string
}

// keyRanges reads a -k value of tool (fdbbackup or fdbrestore): per
// `;`-separated command, no word adds nothing, one word adds the keys that
// start with it, [k, strinc(k)), two words the range [begin, end); a range
// whose end sorts before its begin, three or more words, or one word of
// only \xff bytes (strinc has no answer: flow.cpp ASSERT(index >= 0),
// which a release build throws as internal_error) fail the invocation
// after the help teaser.
func keyRanges(tool, value string) keyRangeResult {
	teaser := "Try `" + tool + " --help' for more information.\n"
	var out keyRangeResult
	for _, words := range tokenize(value, fdbbackupDialect).commands {
		switch len(words) {
		case 0:
		case 1:
			end, ok := strinc(words[0])
			if !ok {
				return keyRangeResult{failure: teaser}
			}
			out.ranges = append(out.ranges, [2]string{words[0], end})
		case 2:
			if words[0] > words[1] {
				return keyRangeResult{failure: "ERROR: Invalid key range `" + words[0] + " " + words[1] +
					"' reported error Range begin key larger than end key\n" + teaser}
			}
			out.ranges = append(out.ranges, [2]string{words[0], words[1]})
		default:
			return keyRangeResult{failure: "ERROR: Invalid key range identified with " + strconv.Itoa(len(words)) + " keys" + teaser}
		}
	}
	return out
}

// strinc is the first key after every key that starts with k: k without
// its trailing \xff bytes, its last byte incremented; ok is false when k is
// only \xff bytes (or empty).
func strinc(k string) (string, bool) {
	for k != "" && k[len(k)-1] == 0xff {
		k = k[:len(k)-1]
	}
	if k == "" {
		return "", false
	}
	return k[:len(k)-1] + string([]byte{k[len(k)-1] + 1}), true
}
