package sessionweb

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/issuesmith/issuesmith/session"
)

// eventView is one expandable line of the timeline.
type eventView struct {
	Seq     int64
	Kind    string
	Summary string
	Status  string // "ok", "fail" or ""
	Took    string
	Shrunk  bool
	Blocks  []block
}

// block is one labelled text of an event: plain, or a diff by lines.
type block struct {
	Label string
	Text  string
	Diff  []diffLine
}

type diffLine struct{ Class, Text string }

func describe(e session.Event) eventView {
	v := eventView{Seq: e.Seq, Kind: string(e.Kind), Shrunk: e.Shrunk}
	if e.Duration > 0 {
		v.Took = roundDur(e.Duration).String()
	}
	add := func(label, text string) {
		if text != "" {
			v.Blocks = append(v.Blocks, block{Label: label, Text: text})
		}
	}
	v.Summary = e.Summary()
	switch {
	case e.Model != nil:
		describeModel(&v, e.Model, add)
	case e.Tool != nil:
		t := e.Tool
		v.Status = okFail(!t.IsError && t.Error == "")
		add("Arguments", session.Readable(t.Args))
		add(fmt.Sprintf("Result (%s bytes)", humanize.Comma(int64(t.ResultBytes))), t.Result)
		add("Error", t.Error)
	case e.Compression != nil:
		add("Record", e.Compression.Record)
	case e.Observer != nil:
		add("Said", e.Observer.Text)
	case e.Edit != nil:
		describeEdit(&v, e.Edit, add)
	case e.Check != nil:
		c := e.Check
		v.Status = okFail(c.OK)
		add("Command", c.Command)
		add("Output (tail)", c.Output)
	case e.Commit != nil:
		c := e.Commit
		add("Message", c.Message)
	case e.GitHub != nil:
		g := e.GitHub
		add("Link", g.URL)
		add("Text", g.Text)
	case e.Cut != nil:
		add("Note", e.Cut.Text)
	}
	return v
}

func describeModel(v *eventView, m *session.ModelCall, add func(string, string)) {
	for _, tc := range m.ToolCalls {
		add("Tool call "+tc.Name, session.Readable(tc.Arguments))
	}
	if m.Error != "" {
		v.Status = "fail"
	}
	add("Reply", m.Text)
	add("Reasoning", m.Reasoning)
	var in strings.Builder
	for _, msg := range m.Input {
		fmt.Fprintf(&in, "— %s", msg.Role)
		if msg.Bytes > len(msg.Content) {
			fmt.Fprintf(&in, " (%s bytes, cut)", humanize.Comma(int64(msg.Bytes)))
		}
		fmt.Fprintf(&in, "\n%s\n", msg.Content)
	}
	label := "New messages"
	if m.Rewritten {
		label = "Messages (the history was rewritten)"
	}
	add(label, in.String())
	add("Error", m.Error)
}

func describeEdit(v *eventView, e *session.Edit, add func(string, string)) {
	v.Status = okFail(e.Applied)
	if e.Diff != "" {
		b := block{Label: "Diff"}
		for _, line := range strings.Split(strings.TrimSuffix(e.Diff, "\n"), "\n") {
			b.Diff = append(b.Diff, diffLine{Class: diffClass(line), Text: line})
		}
		v.Blocks = append(v.Blocks, b)
	}
	add("Refused because", e.Refused)
	add("Feedback to the model", e.Feedback)
}

func diffClass(line string) string {
	switch {
	case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"), strings.HasPrefix(line, "@@"):
		return "hunk"
	case strings.HasPrefix(line, "+"):
		return "add"
	case strings.HasPrefix(line, "-"):
		return "del"
	}
	return ""
}

func okFail(ok bool) string {
	if ok {
		return "ok"
	}
	return "fail"
}

func sortPrompts(ps []promptView) {
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].Kind != ps[j].Kind {
			return ps[i].Kind < ps[j].Kind
		}
		return ps[i].Hash < ps[j].Hash
	})
}
