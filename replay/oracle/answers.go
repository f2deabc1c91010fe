package oracle

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/work"
)

// maxReads bounds the files the explorer reads before it submits: the
// explorer's step budget must leave room for the spec.
const maxReads = 12

// answer is the oracle's reply to one request, from the conversation so
// far (the oracle keeps no state between requests).
func (t *Task) answer(req request) (answer, error) {
	switch req.Role {
	case llm.RoleExplorer:
		return t.explore(req)
	case llm.RoleObserver:
		return jsonAnswer(map[string]string{"analysis": "The exploration is on the files the fix changes.",
			"next": "continue", "suggestion": ""})
	case llm.RolePlanner:
		return t.plan()
	case llm.RoleCoder:
		return t.code(req)
	}
	return answer{}, fmt.Errorf("no answer for role %q", req.Role)
}

// explore reads each gold file that exists, one per step, then submits a
// spec naming every gold file (at once when told to submit now).
func (t *Task) explore(req request) (answer, error) {
	if strings.Contains(req.Messages[len(req.Messages)-1].Content, "Files to judge: ") {
		return t.notes(req) // asked for notes before a compression
	}
	if !offered(req, "submit_spec") {
		return answer{}, fmt.Errorf("the explorer offers no submit_spec tool (tools: %v)", req.Tools)
	}
	read := map[string]bool{}
	calls := 0
	for _, m := range req.Messages {
		for _, c := range m.ToolCalls {
			calls++
			var p struct{ Path string }
			if c.Name == "read_file" && json.Unmarshal([]byte(c.Arguments), &p) == nil {
				read[p.Path] = true
			}
		}
	}
	// A file the exploration record notes was read before a compression
	// dropped the call: a perfect explorer does not read it again.
	for _, p := range recorded(req.Messages) {
		read[p] = true
	}
	// Asked for the spec now (a nudge after a reply without a call), the
	// oracle submits it, as a model following its instructions would.
	nudged := strings.Contains(req.Messages[len(req.Messages)-1].Content, "submit_spec now")
	if offered(req, "read_file") && len(read) < maxReads && !nudged {
		for _, f := range t.Fixes {
			if f.Action != work.ActionAdd && !read[f.Path] {
				return callAnswer(calls, "read_file", map[string]any{"path": f.Path})
			}
		}
	}
	topic := t.topic()
	spec := map[string]any{"topic": topic, "current": []string{"The code does not yet do what the issue asks: " + topic},
		"desired": []string{topic}}
	var files []work.FileChange
	for _, f := range t.Fixes {
		files = append(files, work.FileChange{Path: f.Path, Action: f.Action, Reason: reason(f)})
	}
	spec["files"] = files
	return callAnswer(calls, "submit_spec", spec)
}

// recorded lists the files the explorer's exploration record (kept in the
// task message after a compression) notes: its lines "- path: summary
// Verdict: …" and "Also looked at, not relevant: a, b".
func recorded(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		_, rec, ok := strings.Cut(m.Content, "[Exploration record:")
		if !ok || m.Role != llm.User {
			continue
		}
		for _, line := range strings.Split(rec, "\n") {
			if p, _, ok := strings.Cut(strings.TrimPrefix(line, "- "), ": "); ok && strings.HasPrefix(line, "- ") && strings.Contains(line, " Verdict: ") {
				out = append(out, p)
			}
			if list, ok := strings.CutPrefix(line, "Also looked at, not relevant: "); ok {
				out = append(out, strings.Split(list, ", ")...)
			}
		}
	}
	return out
}

// notes answers a compression: every gold file it is asked to judge is
// relevant.
func (t *Task) notes(req request) (answer, error) {
	_, log, _ := strings.Cut(req.Messages[len(req.Messages)-1].Content, "Files to judge: ")
	type note struct {
		Path     string `json:"path"`
		Summary  string `json:"summary"`
		Relevant bool   `json:"relevant"`
		Why      string `json:"why"`
	}
	files := []note{}
	for _, f := range t.Fixes {
		if strings.Contains(log, f.Path) {
			files = append(files, note{Path: f.Path, Summary: "a file the fix changes", Relevant: true, Why: reason(f)})
		}
	}
	return jsonAnswer(map[string]any{"files": files, "hypothesis": "The fix changes " + t.paths() + "."})
}

// plan answers one item per gold file, in patch order.
func (t *Task) plan() (answer, error) {
	type item struct {
		Path      string   `json:"path"`
		Action    string   `json:"action"`
		Reason    string   `json:"reason"`
		Steps     []string `json:"steps"`
		DependsOn []string `json:"depends_on"`
	}
	items := []item{}
	for _, f := range t.Fixes {
		items = append(items, item{Path: f.Path, Action: string(f.Action), Reason: reason(f),
			Steps: []string{fmt.Sprintf("Make the change the fix makes to %s.", f.Path)}, DependsOn: []string{}})
	}
	return jsonAnswer(map[string]any{"items": items})
}

var itemRe = regexp.MustCompile(`(?m)^# Your item: (\S.*?) \((add|modify|delete)\)[ \t]*$`)

// Coder answers that are not edits.
const (
	doneAnswer     = "<chat>done</chat>"
	noChangeAnswer = "<no-change>The fix's changes are all in place; this needs no further change.</no-change>"
	checkAnswer    = "Let me check the file before I send the rest."
	// firstPart marks an answer whose last block was sent stale on purpose
	// (Faults): the next turn announces a look at the file.
	firstPart = "<chat>First the change to %s; more follows.</chat>"
)

// code answers an item's turn with the gold blocks for its file that are
// not applied yet (all of them on the first turn; after a report, those it
// did not list as applied), and "done" when none is left. A turn that is
// not about an item (a fix round) needs no change: the gold patch is all
// in place.
func (t *Task) code(req request) (answer, error) {
	var path string
	for _, m := range req.Messages {
		if mm := itemRe.FindStringSubmatch(m.Content); m.Role == llm.User && mm != nil {
			path = mm[1]
			break
		}
	}
	f := t.fix(path)
	if f == nil {
		return answer{Content: noChangeAnswer}, nil
	}
	blocks := f.Blocks
	if f.Action == work.ActionAdd {
		blocks = []Block{{Replace: f.Content}}
	}
	if last := lastAssistant(req.Messages); last != nil && strings.HasPrefix(last.Content, fmt.Sprintf(firstPart, f.Path)) {
		return answer{Content: checkAnswer, forced: true}, nil
	}
	left := remaining(req.Messages, f.Path, blocks)
	if len(left) == 0 {
		return answer{Content: doneAnswer}, nil
	}
	return answer{Content: fmt.Sprintf("<chat>The fix's change to %s.</chat>\n", f.Path) + renderBlocks(f.Path, left),
		blocks: left, path: f.Path}, nil
}

// fix is the gold patch's file at path, or nil.
func (t *Task) fix(path string) *Fix {
	for i := range t.Fixes {
		if path != "" && t.Fixes[i].Path == path {
			return &t.Fixes[i]
		}
	}
	return nil
}

// renderBlocks writes blocks as one <file-edit> of path.
func renderBlocks(path string, blocks []Block) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<file-edit filePath=%q>\n", path)
	for _, bl := range blocks {
		b.WriteString(blockText(bl))
	}
	b.WriteString("</file-edit>\n")
	return b.String()
}

func blockText(bl Block) string {
	return fmt.Sprintf("------- SEARCH\n%s=======\n%s+++++++ REPLACE\n", withNewline(bl.Search), withNewline(bl.Replace))
}

func lastAssistant(msgs []llm.Message) *llm.Message {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.Assistant {
			return &msgs[i]
		}
	}
	return nil
}

func withNewline(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}

func (t *Task) topic() string {
	for _, l := range strings.Split(t.Issue, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(l, "# ")); l != "" {
			if r := []rune(l); len(r) > 200 {
				l = string(r[:200])
			}
			return l
		}
	}
	return "Resolve the issue"
}

func (t *Task) paths() string {
	var ps []string
	for _, f := range t.Fixes {
		ps = append(ps, f.Path)
	}
	return strings.Join(ps, ", ")
}

func reason(f Fix) string {
	switch f.Action {
	case work.ActionAdd:
		return "The fix adds this file."
	case work.ActionDelete:
		return "The fix deletes this file."
	}
	return "The fix changes this file."
}

func offered(req request, tool string) bool {
	for _, t := range req.Tools {
		if t == tool {
			return true
		}
	}
	return false
}

func callAnswer(n int, name string, args any) (answer, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return answer{}, err
	}
	return answer{Calls: []llm.ToolCall{{ID: fmt.Sprintf("oracle_%d", n+1), Name: name, Arguments: string(b)}}}, nil
}

func jsonAnswer(v any) (answer, error) {
	b, err := json.Marshal(v)
	return answer{Content: string(b)}, err
}
