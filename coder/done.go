package coder

import (
	"fmt"
	"strings"
)

// The edits already made in a run, as each item's prompt shows them. They
// come right after the task and the plan, before the item itself, and grow
// append-only: files in the order the run first changed them, each file's
// diff cut from its end, files past the budget named with their line
// counts only. So item k+1's prompt starts with item k's up to the file
// item k changed, and a provider's prefix cache serves all of that; the
// old layout (after the item's file, sorted by path, cut in the middle)
// sent every earlier diff uncached again with every item.
const (
	doneFileBytes = 3000 // one file's diff
	doneFileLines = 80
	doneBytes     = 9000 // all of them
)

// done renders the diffs of every file changed so far in the run.
func (l *ledger) done(t *tree) (string, error) {
	files, err := l.changes(t, l.order)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, fc := range files {
		d := clipDiff(fc.Diff)
		if b.Len()+len(d) > doneBytes {
			fmt.Fprintf(&b, "%s: +%d -%d lines (diff not shown: the budget for earlier edits is spent; read_file shows the file)\n",
				fc.Path, fc.Added, fc.Removed)
			continue
		}
		b.WriteString(d)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// clipDiff keeps the head of one file's diff within the per-file budget
// and says how many lines it left out.
func clipDiff(d string) string {
	d = strings.TrimRight(d, "\n")
	lines := strings.Split(d, "\n")
	var b strings.Builder
	for i, l := range lines {
		if i == doneFileLines || b.Len()+len(l)+1 > doneFileBytes {
			fmt.Fprintf(&b, "… %d more lines of this diff not shown …\n", len(lines)-i)
			break
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}
