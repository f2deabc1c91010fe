package coder

import (
	"context"
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/issuesmith/issuesmith/coder/edit"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/lsp"
)

// lastAttempt reports whether the session's current attempt is its last:
// the point after which the apply-model fallback may run.
func (s *session) lastAttempt() bool { return s.r.c.opts.Attempts <= s.attempts }

// rescue is the apply-model fallback (Options.ApplyModel) for the refused
// blocks of the item's last attempt: each lazy sketch or SEARCH block the
// engine could not place is given, with the region the engine located, to
// the apply role's model, and its rewrite is kept only when it passes
// checkRewrite. all is true when every refused block was rescued; fb is the
// blocks' results (the diffs, or why not) for the edit's feedback.
func (s *session) rescue(ctx context.Context, text, defPath string, rep *edit.Report, rolled map[string]bool) (all bool, fb string, err error) {
	edits, perr := edit.Parse(text, edit.ParseOptions{Path: defPath})
	if perr != nil || len(edits) != len(rep.Blocks) {
		return false, "", nil
	}
	var b strings.Builder
	all = true
	for i, br := range rep.Blocks {
		switch br.Status {
		case edit.StatusApplied, edit.StatusAlreadyApplied:
			continue
		case edit.StatusIncomplete:
			all = false
			continue
		}
		e, p := edits[i], cleanRel(br.Path)
		if (e.Op != edit.OpReplace && e.Op != edit.OpLazy) || (br.Reason != edit.ReasonNotFound && br.Reason != edit.ReasonAmbiguous) ||
			rolled[p] || s.r.isBlocked(p) {
			all = false
			continue
		}
		diff, why, err := s.rescueBlock(ctx, p, e, br)
		if err != nil {
			return false, "", err
		}
		if why != "" {
			all = false
			fmt.Fprintf(&b, "Block %d (%s): the apply model did not rescue it: %s.\n", br.Index, p, why)
			s.notes = append(s.notes, fmt.Sprintf("attempt %d: block %d not rescued by the apply model: %s", s.attempts, br.Index, why))
			s.r.event(s.key, s.attempts, "apply-model", "block %d not rescued: %s", br.Index, why)
			continue
		}
		s.applied++
		fmt.Fprintf(&b, "Block %d (%s): rewritten by the apply model; check this diff is what you meant:\n%s", br.Index, p, fenceText(diff))
	}
	return all, b.String(), nil
}

// rescueBlock asks the apply model to rewrite the region of p that the
// refused block e meant and keeps the result if it passes the checks. It
// returns the diff written, or why nothing was; an error is our own failure.
func (s *session) rescueBlock(ctx context.Context, p string, e edit.Edit, br edit.BlockResult) (diff, why string, err error) {
	r := s.r
	before, err := r.tree.snap(p)
	if err != nil || !before.exists {
		return "", "the file does not exist", err
	}
	reg, ok, why := locateRegion(p, before.data, e, br)
	if !ok {
		return "", why, nil
	}
	lines := cutLines(before.data)
	if why := sketchFits(e, lines[reg.Start-1:reg.End].text()); why != "" {
		return "", why, nil
	}
	region := strings.Join(lines[reg.Start-1:reg.End], "")
	reply, err := s.askApply(ctx, p, reg, len(lines), region, e, br)
	if err != nil {
		if ctx.Err() != nil {
			return "", "", ctx.Err()
		}
		return "", "the apply model failed: " + err.Error(), nil
	}
	after := spliceRegion(lines, reg, reply)
	if why := checkRewrite(p, before.data, after, reg); why != "" {
		return "", why, nil
	}
	if why := staleBlock(e, before.data, after, reg); why != "" {
		return "", why, nil
	}
	nb, _ := syntaxErrors(p, before.data)
	if na, supported := syntaxErrors(p, after); supported && na > nb {
		return "", fmt.Sprintf("the rewrite has %d syntax error(s), the file had %d", na, nb), nil
	}
	if err := r.tree.write(p, after); err != nil {
		return "", "", err
	}
	if added, err := s.rescueDiagnostics(ctx, p, before); err != nil || len(added) > 0 {
		if err == nil {
			why = fmt.Sprintf("the language server reports %d new error(s), first: %s", len(added), added[0])
		}
		return "", why, err
	}
	if strings.HasSuffix(p, ".go") {
		// gofmt only when formatting stays inside the region too.
		if out, ferr := formatGo(after); ferr == nil && string(out) != string(after) && checkRewrite(p, before.data, out, reg) == "" {
			if err := r.tree.write(p, out); err != nil {
				return "", "", err
			}
			after = out
		}
	}
	r.res.Rewritten = append(r.res.Rewritten, fmt.Sprintf("%s lines %d–%d", p, reg.Start, reg.End))
	s.notes = append(s.notes, fmt.Sprintf("attempt %d: block %d rewritten by the apply model in lines %d–%d (%s)", s.attempts, br.Index, reg.Start, reg.End, reg.How))
	r.event(s.key, s.attempts, "apply-model", "block %d rescued: %s lines %d–%d (%s)", br.Index, p, reg.Start, reg.End, reg.How)
	return udiff.Unified("a/"+p, "b/"+p, string(before.data), string(after)), "", nil
}

// rescueDiagnostics asks the language servers about the rewritten file;
// when it added errors the file goes back to before and the run's view of
// its errors with it.
func (s *session) rescueDiagnostics(ctx context.Context, p string, before snapshot) ([]lsp.Diagnostic, error) {
	d := s.r.diag
	if d == nil {
		return nil, nil
	}
	prev, known := d.last[p]
	added := s.newErrors(ctx, []string{p}, map[string]snapshot{p: before})
	if len(added) == 0 {
		return nil, nil
	}
	if known {
		d.last[p] = prev
	} else {
		delete(d.last, p)
	}
	if err := s.r.tree.restore(p, before); err != nil {
		return nil, err
	}
	return added, nil
}

// askApply sends the region and the refused block to the apply role's
// model and returns the region it wrote (the reply's first fenced block,
// else the whole reply).
func (s *session) askApply(ctx context.Context, p string, reg applyRegion, total int, region string, e edit.Edit, br edit.BlockResult) (string, error) {
	var u strings.Builder
	fmt.Fprintf(&u, "File: %s. The region is lines %d–%d of %d (%s).\n\n", p, reg.Start, reg.End, total, reg.How)
	fmt.Fprintf(&u, "The region:\n%s\n\n", fenceText(region))
	kind := "SEARCH/REPLACE block"
	if e.Op == edit.OpLazy {
		kind = "lazy sketch"
	}
	fmt.Fprintf(&u, "The %s (the exact matcher refused it: %s):\n%s\n\n", kind, br.Message, fenceText(blockText(e)))
	u.WriteString("Answer with the rewritten region only, in one fenced code block.\n")
	resp, err := s.r.c.model.Chat(ctx, llm.Request{Role: llm.RoleApply, Messages: []llm.Message{
		{Role: llm.System, Content: s.r.c.prompts.apply}, {Role: llm.User, Content: u.String()}}})
	if err != nil {
		return "", err
	}
	s.usage = s.usage.Add(resp.Usage)
	return fencedBody(resp.Message.Content), nil
}

// blockText renders a parsed block as the model wrote it.
func blockText(e edit.Edit) string {
	if e.Op == edit.OpLazy {
		return strings.Join(e.Replace, "\n") + "\n"
	}
	return "------- SEARCH\n" + joinLines(e.Search) + "=======\n" + joinLines(e.Replace) + "+++++++ REPLACE\n"
}

func joinLines(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// fencedBody returns the body of the first fenced code block of a reply
// (``` or ~~~, any length, info string ignored), or the reply itself.
func fencedBody(reply string) string {
	lines := strings.SplitAfter(reply, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		f := fenceRun(t)
		if f == "" {
			continue
		}
		var b strings.Builder
		for _, m := range lines[i+1:] {
			if mt := strings.TrimSpace(m); strings.HasPrefix(mt, f) && strings.Trim(mt, f[:1]) == "" {
				return b.String()
			}
			b.WriteString(m)
		}
		return b.String()
	}
	return reply
}

// fenceRun returns the fence a line opens (its leading ``` or ~~~ run).
func fenceRun(t string) string {
	for _, c := range []string{"`", "~"} {
		n := len(t) - len(strings.TrimLeft(t, c))
		if n >= 3 {
			return t[:n]
		}
	}
	return ""
}

// spliceRegion puts the rewritten region in place of lines Start..End,
// with the region's line endings: CRLF when its first line has one, and no
// final newline when the region ends a file that has none.
func spliceRegion(lines fileLines, reg applyRegion, reply string) []byte {
	eol := "\n"
	if strings.HasSuffix(lines[reg.Start-1], "\r\n") {
		eol = "\r\n"
	}
	var b strings.Builder
	for _, l := range lines[:reg.Start-1] {
		b.WriteString(l)
	}
	body := cutLines([]byte(reply)).text()
	for i, l := range body {
		b.WriteString(l)
		last := i == len(body)-1 && reg.End == len(lines)
		if !last || strings.HasSuffix(lines[len(lines)-1], "\n") {
			b.WriteString(eol)
		}
	}
	for _, l := range lines[reg.End:] {
		b.WriteString(l)
	}
	return []byte(b.String())
}
