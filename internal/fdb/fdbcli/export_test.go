package fdbcli

// ParseExec is what fdbcli of release majorMinor makes of an --exec string
// (see tokenize): its commands, and ok false when the line is malformed or
// ends inside a quote, which fdbcli reports for its last command.
func ParseExec(line, majorMinor string) (commands [][]string, ok bool) {
	p := tokenize(line, cliDialect(majorMinor))
	return p.commands, !p.malformed && !p.partial
}

// ParseKeyRanges is what tool (fdbbackup or fdbrestore) makes of a -k
// value: the raw key ranges it adds, or what it prints before it fails.
func ParseKeyRanges(tool, value string) (ranges [][2]string, failure string) {
	r := keyRanges(tool, value)
	return r.ranges, r.failure
}
