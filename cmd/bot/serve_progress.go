package main

import (
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/planner"
	"github.com/issuesmith/issuesmith/workflow"
)

// The coder has no progress hook; it tells the model where it stands
// instead. Each plan item is one session whose first user message is the
// item prompt (coder/prompts/item.tmpl): "# Your item: PATH (ACTION)", and
// the plan with every finished item's status ("- PATH (ACTION) — STATUS").
// itemWatch reads those lines from the coder's requests and reports the
// items' statuses to the workflow; TestCoderAgentReportsItemProgress runs
// the real coder, so a change of the prompt's shape fails there.
var (
	yourItemRE   = regexp.MustCompile(`(?m)^# Your item: (.+) \([a-z]+\)$`)
	finishedRE   = regexp.MustCompile(`(?m)^- (.+) \([a-z]+\) — ([a-z]+)$`)
	planHeaderRE = regexp.MustCompile(`(?m)^# The approved plan$`)
)

// itemWatch is an llm.Model that forwards every call and reports progress
// when a coder request shows an item starting.
type itemWatch struct {
	m        llm.Model
	items    []workflow.ItemStatus
	progress workflow.Progress
}

// watchItems wraps m for a coder run over plan; progress may be nil.
func watchItems(m llm.Model, plan *planner.Plan, progress workflow.Progress) llm.Model {
	if progress == nil || plan == nil {
		return m
	}
	w := &itemWatch{m: m, progress: progress}
	for _, it := range plan.Items {
		w.items = append(w.items, workflow.ItemStatus{Path: it.Path, Status: workflow.ItemPending})
	}
	return w
}

// Chat notes the item the request works on, then forwards it.
func (w *itemWatch) Chat(ctx context.Context, req llm.Request) (*llm.Response, error) {
	if req.Role == llm.RoleCoder {
		w.observe(req.Messages)
	}
	return w.m.Chat(ctx, req)
}

// Protocol forwards to the wrapped model when it chooses protocols.
func (w *itemWatch) Protocol(role llm.Role) llm.Protocol {
	if pc, ok := w.m.(llm.ProtocolChooser); ok {
		return pc.Protocol(role)
	}
	return llm.ProtocolTools
}

// observe reads the item prompt (the first user message) of a request.
func (w *itemWatch) observe(msgs []llm.Message) {
	i := slices.IndexFunc(msgs, func(m llm.Message) bool { return m.Role == llm.User })
	if i < 0 {
		return
	}
	prompt := msgs[i].Content
	cur := yourItemRE.FindStringSubmatch(prompt)
	if cur == nil || !planHeaderRE.MatchString(prompt) {
		return // a fix round or another prompt: statuses stay
	}
	next := slices.Clone(w.items)
	finished := map[string]string{}
	for _, m := range finishedRE.FindAllStringSubmatch(prompt, -1) {
		finished[m[1]] = m[2]
	}
	for j := range next {
		switch {
		case finished[next[j].Path] != "":
			next[j].Status = finished[next[j].Path]
		case strings.EqualFold(next[j].Path, cur[1]):
			next[j].Status = workflow.ItemWorking
		}
	}
	if slices.Equal(next, w.items) {
		return
	}
	w.items = next
	w.progress(slices.Clone(next))
}
