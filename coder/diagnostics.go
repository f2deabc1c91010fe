package coder

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/issuesmith/issuesmith/lsp"
)

// maxDiagsShown bounds the new errors quoted in one edit's feedback.
const maxDiagsShown = 10

// diagnostics is the run's language-server view of the files it writes:
// the errors each had before the run's first write and after the latest.
type diagnostics struct {
	s    *lsp.Session
	base map[string][]lsp.Diagnostic
	last map[string][]lsp.Diagnostic
}

// startDiagnostics opens the run's language servers when Options.Diagnostics
// is set: in the checks' sandbox (its one policy: this repository's caches,
// the read-only module cache) when the host has
// bubblewrap, with the scrubbed environment either way.
func (r *run) startDiagnostics(ctx context.Context) {
	if !r.c.opts.Diagnostics {
		return
	}
	policy := r.c.sandboxFor(r.tree)
	env := append(baseEnv(), "GOTOOLCHAIN=local", "GOPROXY=off")
	opts := lsp.Options{Sandbox: &policy, Env: env,
		Log: func(format string, args ...any) { r.event("lsp", 0, "lsp", format, args...) }}
	if r.c.opts.DiagnosticsWait > 0 {
		opts.Wait = r.c.opts.DiagnosticsWait
	}
	r.diag = &diagnostics{s: lsp.NewSession(r.ws.Dir(), opts), base: map[string][]lsp.Diagnostic{}, last: map[string][]lsp.Diagnostic{}}
}

// stopDiagnostics shuts the servers down and records the errors the run
// introduced and left.
func (r *run) stopDiagnostics() {
	if r.diag == nil {
		return
	}
	r.diag.s.Close()
	paths := make([]string, 0, len(r.diag.last))
	for p := range r.diag.last {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		r.res.Diagnostics = append(r.res.Diagnostics, lsp.NewErrors(r.diag.base[p], r.diag.last[p])...)
	}
	r.diag = nil
}

// newErrors asks the servers about the files an attempt changed and returns
// the errors that attempt added (before: the files as snapshotted).
func (s *session) newErrors(ctx context.Context, changed []string, snaps map[string]snapshot) []lsp.Diagnostic {
	d := s.r.diag
	if d == nil {
		return nil
	}
	var added []lsp.Diagnostic
	for _, p := range changed {
		before, known := d.last[p]
		if !known {
			sn, ok := snaps[p]
			if !ok || !sn.exists {
				before = nil
			} else if before, known = d.s.ErrorsOf(ctx, p, sn.data); !known {
				continue
			}
			d.base[p] = before
		}
		after, ok := d.s.Errors(ctx, p)
		if !ok {
			continue
		}
		d.last[p] = after
		added = append(added, lsp.NewErrors(before, after)...)
	}
	if len(added) > 0 {
		s.r.event(s.key, s.attempts, "lsp", "%d new error(s): %s", len(added), added[0])
	}
	return added
}

// diagFeedback tells the model the errors its edit added.
func diagFeedback(added []lsp.Diagnostic) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The language server reports %d new error(s) after this edit:\n", len(added))
	for i, d := range added {
		if i == maxDiagsShown {
			fmt.Fprintf(&b, "- … and %d more\n", len(added)-i)
			break
		}
		fmt.Fprintf(&b, "- %s\n", d)
	}
	b.WriteString("Fix them with more edit blocks (the applied edits are in the file now).\n")
	return b.String()
}
