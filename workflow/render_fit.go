package workflow

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/issuesmith/issuesmith/work"
)

// gitHubMaxBody is GitHub's cap on a comment, pull request or review
// comment body, in characters; a longer one is answered 422.
const gitHubMaxBody = 65536

// maxBodyBytes is the budget for a body the bot posts. Bytes, not
// characters: a character is at least a byte, so a body within it fits;
// the margin is for the hidden marker an upsert adds or rewrites.
const maxBodyBytes = gitHubMaxBody - 256

// cutNote cuts s to at most n bytes on a rune boundary, ending it with a
// visible "(cut: N characters)" note saying how much went.
func cutNote(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const room = len("… (cut: 1234567890 characters)")
	kept := strings.TrimSuffix(clipUTF8(s, max(0, n-room)), "…")
	return fmt.Sprintf("%s… (cut: %d characters)", kept, utf8.RuneCountInString(s)-utf8.RuneCountInString(kept))
}

// fitBody is a free-text body (a review reply) cut to fit GitHub's limit.
func fitBody(s string) string { return cutNote(s, maxBodyBytes) }

// errTooLarge says a spec or plan cannot fit in one comment even with its
// free text cut, and how to narrow it. It is permanent: retrying posts the
// same thing, and a silently truncated plan would be read back as the plan.
func errTooLarge(what string, size int) error {
	how := "edit the spec comment to list fewer files, or split the issue into smaller ones, then comment `/plan`"
	if what == "spec" { // not posted: there is no spec comment to edit
		how = "split the issue into smaller ones, or narrow its text to fewer files, then comment `/spec`"
	}
	return permanent(fmt.Errorf("the %s is too large for one GitHub comment (%d characters; GitHub's limit is %d) even with its "+
		"explanations cut. Narrow it: %s", what, size, gitHubMaxBody, how))
}

// cutLimits are the per-field caps tried in turn on a spec's or plan's free
// text until the rendered comment fits; 0 drops an optional text.
var cutLimits = []int{4000, 1000, 300, 100, 0}

// fitSpec renders the spec as a comment within GitHub's limit: its free
// text (topic, behaviour lines, file reasons, questions, note) is cut
// first, each cut marked; the file list is never cut.
func fitSpec(spec *work.Spec, meta work.Meta) (string, error) {
	body := work.RenderSpec(spec, meta)
	for _, n := range cutLimits {
		if len(body) <= maxBodyBytes {
			return body, nil
		}
		c := *spec
		c.Topic = cutNote(spec.Topic, max(n, 100))
		c.Current, c.Desired, c.Questions = cutAll(spec.Current, n), cutAll(spec.Desired, n), cutAll(spec.Questions, n)
		c.Note = cutNote(spec.Note, n)
		c.Files = make([]work.FileChange, len(spec.Files))
		for i, f := range spec.Files {
			f.Reason = cutNote(f.Reason, max(n, 40))
			c.Files[i] = f
		}
		body = work.RenderSpec(&c, meta)
	}
	if len(body) > maxBodyBytes {
		return "", errTooLarge("spec", utf8.RuneCountInString(body))
	}
	return body, nil
}

// fitPlan renders the plan as a comment within GitHub's limit: the items'
// reasons are cut first, then dropped; the items and their steps — what an
// approval approves — are never cut: a plan that does not fit is an error.
func fitPlan(plan *work.Plan, meta work.Meta) (string, error) {
	body := work.RenderPlan(plan, work.PlanState{}, meta)
	for _, n := range cutLimits {
		if len(body) <= maxBodyBytes {
			return body, nil
		}
		c := *plan
		c.Items = make([]work.Item, len(plan.Items))
		for i, it := range plan.Items {
			it.Reason = cutNote(it.Reason, n)
			if n == 0 {
				it.Reason = ""
			}
			c.Items[i] = it
		}
		body = work.RenderPlan(&c, work.PlanState{}, meta)
	}
	if len(body) > maxBodyBytes {
		return "", errTooLarge("plan", utf8.RuneCountInString(body))
	}
	return body, nil
}

func cutAll(lines []string, n int) []string {
	if lines == nil {
		return nil
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = cutNote(l, max(n, 40))
	}
	return out
}

// fitPRBody is renderPRBody within GitHub's limit: the change summary and
// the spec's free text are cut first; if the plan alone is still too long,
// the description is cut before its closing "Fixes #n", which is kept.
func fitPRBody(issue int, spec *work.Spec, plan *work.Plan, rec *pushRecord) string {
	body := renderPRBody(issue, spec, plan, rec)
	for _, n := range cutLimits {
		if len(body) <= maxBodyBytes {
			return body
		}
		s, r := *spec, *rec
		s.Topic, s.Desired = cutNote(spec.Topic, max(n, 100)), cutAll(spec.Desired, n)
		r.Summary = cutNote(rec.Summary, n*4)
		body = renderPRBody(issue, &s, plan, &r)
	}
	if len(body) <= maxBodyBytes {
		return body
	}
	tail := ""
	if i := strings.LastIndex(body, "\nFixes #"); i >= 0 {
		tail = body[i:]
	}
	return cutNote(strings.TrimSuffix(body, tail), maxBodyBytes-len(tail)-1) + "\n" + tail
}
