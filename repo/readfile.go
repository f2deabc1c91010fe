package repo

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"
)

// ReadFile limits.
const (
	// MaxReadLines is the most lines one read_file call returns.
	MaxReadLines = 250
	// MaxReadBytes is the largest file read_file will open; bigger files
	// are described instead (grep still searches them).
	MaxReadBytes = 8 << 20
	// maxLineRunes truncates very long lines (minified code) in a window.
	maxLineRunes = 400
	// sniffBytes is how much of a file is inspected to tell binary from text.
	sniffBytes = 8000
)

// ReadFileParams are the arguments of the read_file tool.
type ReadFileParams struct {
	Path   string `json:"path" jsonschema:"description=File to read, relative to the repository root"`
	Offset int    `json:"offset,omitempty" jsonschema:"description=First line to show, 1-based (default 1)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"description=How many lines to show (default and maximum 250)"`
}

// ReadFile returns a line-numbered window of a text file: at most 250 lines
// from p.Offset, headed by "lines X–Y of N" and followed by how to read more.
// Binary and huge files are described rather than dumped; a path in a git
// submodule is ErrSubmodule. Errors satisfying
// IsModelError are mistakes to report to the model.
func (w *Workspace) ReadFile(ctx context.Context, p ReadFileParams) (string, error) {
	rel, err := Clean(p.Path)
	if err != nil {
		return "", err
	}
	if err := w.checkSubmodule(rel); err != nil {
		return "", err
	}
	f, err := w.open(rel)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", classify(rel, err)
	}
	if st.IsDir() {
		return "", fmt.Errorf("%q is a directory (use list_dir): %w", rel, ErrIsDir)
	}
	if st.Size() > MaxReadBytes {
		return fmt.Sprintf("%s: %s, too large to read here (limit %s); use grep to find the lines you need.\n",
			rel, humanSize(st.Size()), humanSize(MaxReadBytes)), nil
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return "", fmt.Errorf("read %q: %w", rel, err)
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if IsBinary(data) {
		return fmt.Sprintf("%s: binary file (%s, %s); not shown.\n",
			rel, http.DetectContentType(data), humanSize(int64(len(data)))), nil
	}
	return window(rel, data, p.Offset, p.Limit), nil
}

// window renders lines [offset, offset+limit) of data with line numbers.
func window(rel string, data []byte, offset, limit int) string {
	if limit <= 0 || limit > MaxReadLines {
		limit = MaxReadLines
	}
	offset = max(offset, 1)
	total := countLines(data)
	if total == 0 {
		return rel + ": empty file (0 lines).\n"
	}
	if offset > total {
		return fmt.Sprintf("%s has %d lines; offset %d is past the end. Use an offset from 1 to %d.\n",
			rel, total, offset, total)
	}
	last := min(offset+limit-1, total)
	var b strings.Builder
	fmt.Fprintf(&b, "%s — lines %d–%d of %d\n", rel, offset, last, total)
	width := len(fmt.Sprint(last))
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), len(data)+1)
	for n := 1; sc.Scan() && n <= last; n++ {
		if n < offset {
			continue
		}
		fmt.Fprintf(&b, "%*d\t%s\n", width, n, clip(strings.TrimRight(sc.Text(), "\r")))
	}
	if last < total {
		fmt.Fprintf(&b, "(%d more lines; call read_file with offset=%d to read lines %d–%d)\n",
			total-last, last+1, last+1, min(last+MaxReadLines, total))
	} else {
		b.WriteString("(end of file)\n")
	}
	return b.String()
}

// clip shortens a line longer than maxLineRunes, saying how much was cut.
func clip(line string) string {
	if utf8.RuneCountInString(line) <= maxLineRunes {
		return line
	}
	r := []rune(line)
	return fmt.Sprintf("%s … [%d more characters]", string(r[:maxLineRunes]), len(r)-maxLineRunes)
}

// countLines counts lines the way an editor shows them: a final line without
// a newline still counts.
func countLines(data []byte) int {
	if len(data) == 0 {
		return 0
	}
	n := bytes.Count(data, []byte{'\n'})
	if data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// IsBinary reports whether data looks like a binary file: a NUL byte in its
// first 8000 bytes (git's own test) or mostly invalid UTF-8.
func IsBinary(data []byte) bool {
	head := data[:min(len(data), sniffBytes)]
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	if utf8.Valid(head) {
		return false
	}
	bad := 0
	for len(head) > 0 {
		r, size := utf8.DecodeRune(head)
		if r == utf8.RuneError && size == 1 {
			bad++
		}
		head = head[size:]
	}
	// A truncated rune at the cut is not evidence; a few percent of invalid
	// bytes is (Latin-1 text stays readable as text below that).
	return bad > 4 && bad*100 > len(data[:min(len(data), sniffBytes)])*10
}

// humanSize renders a byte count as "12.3 KB".
func humanSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}
