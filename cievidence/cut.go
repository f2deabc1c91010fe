package cievidence

import (
	"fmt"
	"regexp"
	"strings"
)

// timestamp is the prefix GitHub Actions writes before every log line.
var timestamp = regexp.MustCompile(`^\x{FEFF}?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z ?`)

// telling matches the lines that explain a failure: Go test failures and
// panics, compiler and vet errors (file.go:12:3: ...), Actions error
// commands, and the usual failure words of other tools.
var telling = regexp.MustCompile(`^\s*(--- FAIL|FAIL\b|panic:|fatal error:|##\[error\]|Error:|error:|ERROR\b|E\s{2,}|FAILED\b|npm ERR!|\S+\.(go|py|ts|tsx|js|jsx|rs|java|c|cc|cpp|h):\d+(:\d+)?:)`)

// contextBefore and contextAfter are how many lines around a telling line
// are kept: test output is printed right before (`go test -v`) or right
// after (`go test`) the --- FAIL line, indented.
const (
	contextBefore = 3
	contextAfter  = 8
	// tailLines is kept of a failing step with no telling line at all.
	tailLines = 25
)

// step is one step of a job log: the lines between two ##[group] markers.
type step struct {
	name  string
	lines []string
}

// Cut reduces a GitHub Actions job log to what explains its failure: the
// steps that reported an error (##[error]), and in them the telling lines
// with a few lines of context; elided spans are marked "… N lines …".
// Timestamps are dropped. A log with no ##[error] at all is treated as one
// failing step. The result is not capped: Render does that.
func Cut(log string) string {
	steps := splitSteps(log)
	var failing []step
	for _, s := range steps {
		if hasError(s) {
			failing = append(failing, s)
		}
	}
	if len(failing) == 0 {
		failing = []step{{name: "", lines: joinLines(steps)}}
	}
	var b strings.Builder
	for _, s := range failing {
		if s.name != "" {
			fmt.Fprintf(&b, "== step: %s\n", s.name)
		}
		b.WriteString(keep(s.lines))
	}
	return b.String()
}

func splitSteps(log string) []step {
	var steps []step
	cur := step{}
	for _, line := range strings.Split(strings.ReplaceAll(log, "\r\n", "\n"), "\n") {
		line = timestamp.ReplaceAllString(line, "")
		if name, ok := strings.CutPrefix(line, "##[group]"); ok {
			if len(cur.lines) > 0 || cur.name != "" {
				steps = append(steps, cur)
			}
			cur = step{name: strings.TrimSpace(name)}
			continue
		}
		if line == "##[endgroup]" {
			continue
		}
		cur.lines = append(cur.lines, line)
	}
	if len(cur.lines) > 0 || cur.name != "" {
		steps = append(steps, cur)
	}
	return steps
}

func hasError(s step) bool {
	for _, l := range s.lines {
		if strings.HasPrefix(l, "##[error]") {
			return true
		}
	}
	return false
}

func joinLines(steps []step) []string {
	var out []string
	for _, s := range steps {
		out = append(out, s.lines...)
	}
	return out
}

// keep returns the telling lines of a step with their context, or its tail
// when none tells anything.
func keep(lines []string) string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	mark := make([]bool, len(lines))
	found := false
	for i, l := range lines {
		if !telling.MatchString(l) {
			continue
		}
		found = true
		for j := max(0, i-contextBefore); j <= min(len(lines)-1, i+contextAfter); j++ {
			mark[j] = true
		}
	}
	if !found {
		for j := max(0, len(lines)-tailLines); j < len(lines); j++ {
			mark[j] = true
		}
	}
	var b strings.Builder
	skipped := 0
	flush := func() {
		if skipped > 0 {
			fmt.Fprintf(&b, "… %d lines …\n", skipped)
			skipped = 0
		}
	}
	for i, l := range lines {
		if !mark[i] {
			skipped++
			continue
		}
		flush()
		b.WriteString(l)
		b.WriteByte('\n')
	}
	flush()
	return b.String()
}

// firstTelling returns up to n telling lines of text, trimmed.
func firstTelling(text string, n int) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if len(out) == n {
			break
		}
		if telling.MatchString(l) {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}
