package preagent

import (
	"context"
	"fmt"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/work"
)

// prefixLen is the number of leading messages compression never drops:
// the system prompt and the task (issue, tree, README); after a
// compression the task message ends with the exploration record.
const prefixLen = 2

// beforeCall runs before every explorer call: it numbers the step and, when
// the conversation has grown past CompressAt tokens, rewrites the explored
// history into the compact record.
func (s *session) beforeCall(ctx context.Context, st *llm.State) error {
	s.step = s.stepBase + st.Step
	s.fitWindow(st.Window)
	// The tool definitions travel with every request: they count too.
	if s.opts.CompressAt < 0 || s.memo.count(st.Messages)+s.schemaTokens <= s.opts.CompressAt {
		return nil
	}
	return s.compress(ctx, st)
}

// compress keeps the prefix and the newest turn (its results have not been
// seen by the model yet), folds every older turn into the record, and cuts
// the newest turn's results if the prompt still does not fit.
func (s *session) compress(ctx context.Context, st *llm.State) error {
	msgs := st.Messages
	start := prefixLen
	if s.task == "" && len(msgs) >= prefixLen {
		s.task = msgs[prefixLen-1].Content
	}
	last := -1
	for i := len(msgs) - 1; i >= start; i-- {
		if msgs[i].Role == llm.Assistant {
			last = i
			break
		}
	}
	before := s.memo.count(msgs)
	newest := len(msgs)
	if last >= 0 {
		newest = last
	}
	if last > start {
		dropped := msgs[start:last]
		keepFrom := s.step - 1 // the newest turn's observations stay raw
		if err := s.fold(ctx, st, dropped, lastThought(msgs[start:]), keepFrom); err != nil {
			return err
		}
		// The record joins the task message: a second user message in a
		// row is refused by some providers (Mistral).
		out := append([]llm.Message(nil), msgs[:prefixLen]...)
		out[prefixLen-1].Content = s.task + "\n\n" + s.rec.render(s.opts.RecordTokens)
		newest = len(out)
		msgs = append(out, msgs[last:]...)
		s.res.Compressions++
	}
	msgs = fitTail(msgs, newest, s.opts.CompressAt-s.schemaTokens)
	st.Messages = msgs
	after := s.memo.count(msgs)
	s.emit(work.Event{Kind: work.EventCompress, Step: s.step, PromptTokens: after, Before: before,
		Detail: fmt.Sprintf("%d → %d prompt tokens; record holds %d files", before, after, len(s.rec.files))})
	return nil
}

// fold turns the observations of the dropped turns (steps before keepFrom)
// into record notes: verdicts from the model when allowed, deterministic
// ones for every file the model did not judge. thought, the explorer's
// latest reasoning, is the hypothesis when the model gives none.
func (s *session) fold(ctx context.Context, st *llm.State, dropped []llm.Message, thought string, keepFrom int) error {
	var files []*observation
	var actions []string
	for i := range s.obs {
		o := &s.obs[i]
		if o.folded || o.Step >= keepFrom {
			continue
		}
		o.folded = true
		switch {
		case o.IsError:
			actions = append(actions, fmt.Sprintf("%s %s (error)", o.Tool, oneLine(o.Arg, 60)))
		case o.Path != "":
			files = append(files, o)
		default:
			actions = append(actions, fmt.Sprintf("%s %s", o.Tool, oneLine(o.Arg, 60)))
		}
	}
	paths := uniquePaths(files)
	var notes []fileNote
	hypothesis := ""
	if !s.opts.NoModelVerdicts && len(dropped) > 0 {
		v, err := s.modelVerdicts(ctx, st, paths)
		if err != nil {
			return err
		}
		notes, hypothesis = v.Files, v.Hypothesis
	}
	judged := map[string]bool{}
	for _, n := range notes {
		judged[n.Path] = true
	}
	for _, p := range paths {
		if !judged[p] {
			notes = append(notes, s.fallbackNote(p, files, dropped))
		}
	}
	if hypothesis == "" {
		hypothesis = thought
	}
	s.rec.merge(orderNotes(notes, paths), actions, hypothesis)
	return nil
}

// fitTail cuts the contents of the messages from index from on (the newest
// turn's tool results) until the whole conversation is at most limit tokens,
// each result keeping an equal share of what is left.
func fitTail(msgs []llm.Message, from, limit int) []llm.Message {
	total := llm.CountTokens(msgs)
	if total <= limit || from >= len(msgs) {
		return msgs
	}
	var idx []int
	tail := 0
	for i := from; i < len(msgs); i++ {
		if msgs[i].Role != llm.Assistant {
			idx = append(idx, i)
			tail += llm.CountText(msgs[i].Content)
		}
	}
	if len(idx) == 0 {
		return msgs
	}
	room := max(limit-(total-tail), 50*len(idx))
	for _, i := range idx {
		msgs[i].Content = cutTokens(msgs[i].Content, room/len(idx),
			"cut to fit the context window; ask for a smaller window")
	}
	return msgs
}

// lastThought is the explorer's most recent reasoning text in msgs, used as
// the hypothesis when the model gave none.
func lastThought(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != llm.Assistant {
			continue
		}
		// Reasoning and tool calls written as text are no hypothesis.
		// Nor are the loop's placeholders or a repetition loop's text.
		if t := answerText(msgs[i].Content); t != "" && !looksLikeCall(t) && !llm.IsPlaceholder(t) && !llm.Repetitive(t) {
			return oneLine(t, 400)
		}
	}
	return ""
}

func uniquePaths(obs []*observation) []string {
	var out []string
	seen := map[string]bool{}
	for _, o := range obs {
		if !seen[o.Path] {
			seen[o.Path] = true
			out = append(out, o.Path)
		}
	}
	return out
}

// orderNotes returns notes in the order their paths were explored.
func orderNotes(notes []fileNote, paths []string) []fileNote {
	by := map[string]fileNote{}
	for _, n := range notes {
		by[n.Path] = n
	}
	out := make([]fileNote, 0, len(paths))
	for _, p := range paths {
		if n, ok := by[p]; ok {
			out = append(out, n)
		}
	}
	return out
}

// fitWindow sizes compression to the model's context window once its
// server stated one (llm.State.Window): the defaults assume 32k tokens, and
// a smaller window (Ollama's default num_ctx, a llama.cpp --ctx-size) would
// otherwise be outgrown before the first compression. The prompt is
// compressed past half the window and kept under three quarters, one tool
// result and the record under an eighth each; settings already smaller stay.
func (s *session) fitWindow(w llm.Window) {
	if !w.Known() || w.Tokens == s.window {
		return
	}
	s.window = w.Tokens
	if s.opts.CompressAt > 0 {
		s.opts.CompressAt = min(s.opts.CompressAt, w.Tokens/2)
	}
	s.opts.MaxPromptTokens = min(s.opts.MaxPromptTokens, w.Tokens*3/4)
	s.opts.MaxResultTokens = min(s.opts.MaxResultTokens, max(w.Tokens/8, 256))
	s.opts.RecordTokens = min(s.opts.RecordTokens, max(w.Tokens/8, 256))
}
