package trydemo

import "strings"

// diffFile is one file of a unified diff as the page shows it.
type diffFile struct {
	Path       string
	Adds, Dels int
	Lines      []diffLine
}

// diffLine is one line of a file's diff; Kind is its CSS class.
type diffLine struct {
	Kind string // "hunk", "add", "del" or "ctx"
	Text string
}

// splitDiff cuts git's unified diff into files, keeping the hunks' lines
// (the "diff --git", "index", "---" and "+++" headers become the path).
func splitDiff(diff string) []diffFile {
	var files []diffFile
	var cur *diffFile
	inHunk := false
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			files = append(files, diffFile{Path: pathOf(l)})
			cur, inHunk = &files[len(files)-1], false
		case cur == nil:
		case strings.HasPrefix(l, "@@"):
			inHunk = true
			cur.Lines = append(cur.Lines, diffLine{"hunk", l})
		case !inHunk:
			// index, mode and ---/+++ lines before the first hunk
		case strings.HasPrefix(l, "+"):
			cur.Adds++
			cur.Lines = append(cur.Lines, diffLine{"add", l})
		case strings.HasPrefix(l, "-"):
			cur.Dels++
			cur.Lines = append(cur.Lines, diffLine{"del", l})
		default:
			cur.Lines = append(cur.Lines, diffLine{"ctx", l})
		}
	}
	return files
}

// pathOf is the new path of a "diff --git a/X b/Y" line.
func pathOf(header string) string {
	if i := strings.LastIndex(header, " b/"); i >= 0 {
		return header[i+3:]
	}
	return strings.TrimPrefix(header, "diff --git ")
}
