package coder

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/work"
)

// run is the state of one Implement or Revise call.
type run struct {
	c       *Coder
	ws      *repo.Workspace
	tree    *tree
	spec    *work.Spec
	plan    *work.Plan
	ledger  *ledger
	allowed map[string]bool // the only paths the model may write
	res     *Result
	used    llm.Usage // tokens spent by finished sessions, for Options.MaxTokens
	cost    float64   // cost of finished sessions, for Options.MaxCost
	// modelErr is the model failure that ended an item: later items are
	// not attempted and no fix round asks the model again.
	modelErr *ModelError
	// failures are the model's failures on plan items (failure.go).
	failures []itemFailure
	diag     *diagnostics // language servers (Options.Diagnostics), nil when off
	setup    setupState   // Options.Setup in this run (setup_run.go)
	start    time.Time    // for Options.MaxWall
}

func (c *Coder) newRun(ctx context.Context, ws *repo.Workspace, spec *work.Spec, plan *work.Plan) (*run, error) {
	t := treeOf(ctx, ws)
	r := &run{c: c, ws: ws, tree: t, spec: spec, plan: plan, ledger: newLedger(),
		allowed: map[string]bool{}, res: &Result{}, start: time.Now()}
	for _, it := range plan.Items {
		p := cleanRel(it.Path)
		if ws.InSubmodule(p) != "" {
			continue // never written: doItem says why (blockedWhy)
		}
		r.allowed[p] = true
		// Every plan path is snapshotted before anything is written, so the
		// change set and rollbacks are relative to the start of the run.
		if err := r.ledger.remember(t, p); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// event appends to the transcript.
func (r *run) event(item string, attempt int, kind, format string, args ...any) {
	r.res.Transcript = append(r.res.Transcript, Event{Item: item, Attempt: attempt, Kind: kind, Detail: fmt.Sprintf(format, args...)})
}

// isBlocked is the edit engine's Blocked hook: blocked globs, any path
// outside the plan (the approved plan is the scope of the change), and any
// path through a symbolic link.
func (r *run) isBlocked(p string) bool {
	p = cleanRel(p)
	return r.c.isBlocked(p) || !r.allowed[p] || r.tree.viaSymlink(p)
}

// blockedWhy says why the item path p may not be written, or "".
func (r *run) blockedWhy(p string) string {
	switch sub := r.ws.InSubmodule(p); {
	case sub == p:
		return "path is a git submodule (a pointer to a commit of another repository); the bot cannot change it"
	case sub != "":
		return "path lies in the git submodule " + sub + " (another repository, pinned at a commit); the bot cannot change its files"
	case r.c.isBlocked(p):
		return "path matches a blocked pattern; the bot never writes it"
	case r.tree.viaSymlink(p):
		return "path is or lies under a symbolic link; the bot never writes through links"
	}
	return ""
}

// doItem carries out plan item i.
func (r *run) doItem(ctx context.Context, i int) error {
	it := r.plan.Items[i]
	p := cleanRel(it.Path)
	ir := ItemResult{Path: p, Action: it.Action}
	defer func() {
		r.res.Items = append(r.res.Items, ir)
		r.ended(i, ir)
	}()
	if why := r.blockedWhy(p); why != "" {
		ir.Status, ir.Reason = ItemBlocked, why
		r.res.Blocked = appendUnique(r.res.Blocked, p)
		r.event(p, 0, "blocked", "%s", ir.Reason)
		return nil
	}
	r.started(i, p)
	if it.Action == work.ActionDelete {
		return r.deleteItem(p, &ir)
	}
	if data, _, err := r.tree.read(p); err != nil {
		return err
	} else if repo.IsBinary(data) {
		ir.Status, ir.Reason = ItemFailed, "binary file: the coder edits text files only"
		r.event(p, 0, "failed", "%s", ir.Reason)
		return nil
	}
	s := r.newSession(p, []string{p})
	s.reprompt = func() (string, error) { return r.itemPrompt(i) }
	prompt, err := r.itemPrompt(i)
	if err != nil {
		return err
	}
	r.event(p, 0, "prompt", "%s, %d steps, %d tokens", it.Action, len(it.Steps), llm.CountText(prompt))
	err = s.converse(ctx, prompt)
	var me *ModelError
	if errors.As(err, &me) {
		r.modelErr = me
		err = nil
	}
	if err != nil {
		return err
	}
	s.fill(&ir)
	return nil
}

// skipItem records plan item i as not attempted because the model failed
// on an earlier one.
func (r *run) skipItem(i int) {
	it := r.plan.Items[i]
	ir := ItemResult{Path: cleanRel(it.Path), Action: it.Action, Status: ItemFailed,
		Reason: fmt.Sprintf("not attempted: the model failed on %s: %v", r.modelErr.Item, r.modelErr.Err)}
	r.event(ir.Path, 0, "failed", "%s", ir.Reason)
	r.res.Items = append(r.res.Items, ir)
	r.ended(i, ir)
}

// deleteItem removes the file, as the plan says; no model call is needed.
func (r *run) deleteItem(p string, ir *ItemResult) error {
	_, exists, err := r.tree.read(p)
	if err != nil {
		return err
	}
	if !exists {
		ir.Status, ir.Reason = ItemSkipped, "the file does not exist"
		r.event(p, 0, "skipped", "delete: file does not exist")
		return nil
	}
	if err := r.tree.remove(p); err != nil {
		return err
	}
	ir.Status = ItemDone
	r.event(p, 0, "done", "deleted")
	return nil
}

// itemPrompt renders the prompt of plan item i.
func (r *run) itemPrompt(i int) (string, error) {
	it := r.plan.Items[i]
	p := cleanRel(it.Path)
	data, exists, err := r.tree.read(p)
	if err != nil {
		return "", err
	}
	steps := make([]string, 0, len(it.Steps))
	for _, s := range it.Steps {
		steps = append(steps, s.Text)
	}
	f := focusOf(append(steps, it.Reason)...)
	ip := itemPrompt{
		Topic: r.spec.Topic, Current: r.spec.Current, Desired: r.spec.Desired,
		Path: p, Action: string(it.Action), Number: i + 1, Reason: it.Reason, Steps: steps,
		View: buildView(p, data, exists, f, r.c.opts.MaxFileLines),
	}
	for j, o := range r.plan.Items {
		pl := planLine{Path: o.Path, Action: string(o.Action)}
		if j < len(r.res.Items) && j != i {
			pl.Status = r.res.Items[j].Status
		}
		ip.Plan = append(ip.Plan, pl)
	}
	if ip.Done, err = r.ledger.done(r.tree); err != nil {
		return "", err
	}
	return render(r.c.prompts.item, ip)
}

// finish computes the change set, usage and summary.
func (r *run) finish() (*Result, error) {
	cs, err := r.ledger.changeSet(r.tree)
	if err != nil {
		return nil, err
	}
	r.res.Changes = cs
	var u llm.Usage
	for _, it := range r.res.Items {
		u = u.Add(it.Usage)
	}
	r.res.Usage = u.Add(r.res.Usage)
	r.res.Summary = summarize(r.res)
	return r.res, nil
}

// summarize writes the short Markdown summary for the PR body.
func summarize(res *Result) string {
	var b strings.Builder
	stat := map[string]FileChange{}
	for _, f := range res.Changes.Files {
		stat[f.Path] = f
	}
	for _, it := range res.Items {
		fmt.Fprintf(&b, "- `%s` (%s): %s", it.Path, it.Action, it.Status)
		if f, ok := stat[it.Path]; ok {
			fmt.Fprintf(&b, ", +%d −%d", f.Added, f.Removed)
		}
		if it.Status != ItemDone && it.Reason != "" {
			fmt.Fprintf(&b, " — %s", firstLine(it.Reason))
		}
		b.WriteByte('\n')
	}
	if cks := res.LastChecks(); len(cks) > 0 {
		var parts []string
		for _, c := range cks {
			mark := "passed"
			if c.Refused {
				mark = "not run: " + strings.TrimPrefix(notRunWhy(c), "not run: ")
			} else if !c.OK {
				mark = "failed"
			}
			parts = append(parts, fmt.Sprintf("`%s` %s", c.Command, mark))
		}
		fmt.Fprintf(&b, "\nChecks: %s.\n", strings.Join(parts, ", "))
	}
	if len(res.Blocked) > 0 {
		fmt.Fprintf(&b, "\nNot written (blocked paths): %s.\n", strings.Join(res.Blocked, ", "))
	}
	if len(res.Rewritten) > 0 {
		fmt.Fprintf(&b, "\nWritten by the apply model from an edit the engine refused (read these closely): %s.\n", strings.Join(res.Rewritten, ", "))
	}
	if n := len(res.Diagnostics); n > 0 {
		fmt.Fprintf(&b, "\nLanguage-server errors this change added and left (%d):\n", n)
		for i, d := range res.Diagnostics {
			if i == maxDiagsShown {
				fmt.Fprintf(&b, "- … and %d more\n", n-i)
				break
			}
			fmt.Fprintf(&b, "- `%s`\n", d)
		}
	}
	fmt.Fprintf(&b, "\n%s.\n", res.Changes.Stat())
	return b.String()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	list = append(list, s)
	sort.Strings(list)
	return list
}
