package oracle

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/issuesmith/issuesmith/llm"
)

// Faults makes the oracle misbehave the way real models and their servers
// do, at Rate of its explorer, planner and coder turns, chosen by a random
// source seeded with Seed and the instance's issue (the same run misbehaves
// the same way again). A faulty turn is one of the kinds below; the
// oracle's answers are otherwise as correct as ever, so anything short of
// resolved is the bot's failure to recover.
type Faults struct {
	Rate float64
	Seed uint64
}

// ParseFaults reads "RATE[,SEED]" (--faults): RATE in [0,1], SEED an
// unsigned integer (default 1).
func ParseFaults(s string) (Faults, error) {
	rate, seed, hasSeed := strings.Cut(s, ",")
	f := Faults{Seed: 1}
	r, err := strconv.ParseFloat(strings.TrimSpace(rate), 64)
	if err != nil || r < 0 || r > 1 {
		return Faults{}, fmt.Errorf("fault rate %q: want a number from 0 to 1", rate)
	}
	f.Rate = r
	if hasSeed {
		if f.Seed, err = strconv.ParseUint(strings.TrimSpace(seed), 10, 64); err != nil {
			return Faults{}, fmt.Errorf("fault seed %q: want an unsigned integer", seed)
		}
	}
	return f, nil
}

// Fault kinds. Harmless kinds (reasoning) leave the answer usable; the
// others waste the turn, and recovery costs at least one more call.
const (
	FaultCut         = "cut"             // the reply stops halfway, finish_reason "length"
	FaultEmpty       = "empty"           // an empty reply
	FaultReasoning   = "reasoning"       // reasoning_content beside the answer
	FaultThink       = "think"           // <think>…</think> before the answer, with a wrong draft inside
	FaultLoneThink   = "lone_think"      // reasoning, then a closing </think> with no opening tag, then the answer
	FaultTextCall    = "text_call"       // the tool call written as JSON text
	FaultTaggedCall  = "tagged_call"     // the tool call written in <tool_call> tags
	FaultGluedArgs   = "glued_args"      // the arguments twice, glued: {…}{…}
	FaultTypedArgs   = "mistyped_args"   // a number sent as a string ("offset": "1")
	FaultCheck       = "let_me_check"    // a block-less "let me check" instead of the edit
	FaultStale       = "stale_search"    // one SEARCH quotes a line as it no longer is
	FaultStaleCheck  = "stale_then_look" // a stale last block, then "let me check", then the rest
	FaultForcedCheck = "forced_check"    // the "let me check" turn a stale_then_look costs
)

// harmless kinds leave the turn's answer usable.
var harmless = map[string]bool{FaultReasoning: true, FaultThink: true, FaultLoneThink: true}

// Stats is what the faults of one instance cost.
type Stats struct {
	// Calls and Tokens are all the oracle's calls and their tokens.
	Calls  int `json:"calls"`
	Tokens int `json:"tokens"`
	// PromptTokens, CachedTokens and CompletionTokens are the usage the
	// oracle reported; CachedTokens is the part of the prompts an
	// automatic prefix cache would have served (cache.go).
	PromptTokens     int `json:"prompt_tokens"`
	CachedTokens     int `json:"cached_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// Kinds counts the faults injected by kind.
	Kinds map[string]int `json:"kinds,omitempty"`
	// ExtraCalls are the calls the faults wasted (the faulty turns that
	// were not usable, and the turns they forced); ExtraTokens their
	// prompt and completion tokens, plus the reasoning of harmless faults.
	ExtraCalls  int `json:"extra_calls"`
	ExtraTokens int `json:"extra_tokens"`
}

// Injected is the number of faults (the turns they forced not counted).
func (s *Stats) Injected() int {
	n := 0
	for k, v := range s.Kinds {
		if k != FaultForcedCheck {
			n += v
		}
	}
	return n
}

// faulter is the per-instance random source of Faults.
type faulter struct {
	f   Faults
	rng *rand.Rand
}

func newFaulter(f Faults, issue string) *faulter {
	h := fnv.New64a()
	h.Write([]byte(issue))
	return &faulter{f: f, rng: rand.New(rand.NewPCG(f.Seed, h.Sum64()))}
}

// apply returns a, or a faulty version of it, and the fault's kind ("" for
// none).
func (f *faulter) apply(role llm.Role, a answer) (answer, string) {
	if f == nil || a.forced {
		return a, ""
	}
	kinds := faultKinds(role, a)
	if len(kinds) == 0 || f.rng.Float64() >= f.f.Rate {
		return a, ""
	}
	kind := kinds[f.rng.IntN(len(kinds))]
	return damage(kind, a), kind
}

// faultKinds lists the faults that fit an answer of role.
func faultKinds(role llm.Role, a answer) []string {
	switch {
	case role == llm.RoleExplorer && len(a.Calls) == 1:
		k := []string{FaultCut, FaultEmpty, FaultReasoning, FaultThink, FaultTextCall, FaultTaggedCall, FaultGluedArgs}
		if a.Calls[0].Name == "read_file" {
			k = append(k, FaultTypedArgs)
		}
		return k
	case role == llm.RolePlanner:
		return []string{FaultCut, FaultEmpty, FaultReasoning, FaultThink, FaultLoneThink}
	case role == llm.RoleCoder && len(a.blocks) > 0:
		k := []string{FaultCut, FaultEmpty, FaultReasoning, FaultThink, FaultLoneThink, FaultCheck}
		if a.blocks[0].Search != "" {
			k = append(k, FaultStale)
			if len(a.blocks) > 1 {
				k = append(k, FaultStaleCheck)
			}
		}
		return k
	}
	return nil
}

// damage makes a into the fault kind.
func damage(kind string, a answer) answer {
	text := a.Content
	if len(a.Calls) == 1 {
		text = callText(a.Calls[0])
	}
	switch kind {
	case FaultCut:
		r := []rune(text)
		return answer{Content: string(r[:len(r)/2]), Finish: llm.FinishLength}
	case FaultEmpty:
		return answer{}
	case FaultReasoning:
		a.Reasoning = "The issue points at one place; I will answer with exactly what the fix needs."
	case FaultThink:
		draft := "a first guess"
		if len(a.blocks) > 0 && a.blocks[0].Search != "" {
			// A wrong draft: applied, it would delete the region.
			draft = renderBlocks(a.path, []Block{{Search: a.blocks[0].Search}})
		}
		a.Content = "<think>\nLet me work it out. " + draft + "\nNo, that is wrong.\n</think>\n" + a.Content
	case FaultLoneThink:
		a.Content = "Let me work it out: the change goes where the issue says.\n</think>\n\n" + a.Content
	case FaultTextCall:
		return answer{Content: text}
	case FaultTaggedCall:
		return answer{Content: "<tool_call>\n" + text + "\n</tool_call>"}
	case FaultGluedArgs:
		a.Calls = []llm.ToolCall{a.Calls[0]}
		a.Calls[0].Arguments += a.Calls[0].Arguments
	case FaultTypedArgs:
		var args map[string]any
		if json.Unmarshal([]byte(a.Calls[0].Arguments), &args) == nil {
			args["offset"] = "1"
			b, _ := json.Marshal(args)
			a.Calls = []llm.ToolCall{a.Calls[0]}
			a.Calls[0].Arguments = string(b)
		}
	case FaultCheck:
		return answer{Content: checkAnswer}
	case FaultStale:
		return staleAnswer(a, 0, "<chat>The fix's change to "+a.path+".</chat>\n")
	case FaultStaleCheck:
		return staleAnswer(a, len(a.blocks)-1, fmt.Sprintf(firstPart, a.path)+"\n")
	}
	return a
}

// staleAnswer sends a's blocks with block i's SEARCH quoting its first
// non-blank line as it no longer is in the file.
func staleAnswer(a answer, i int, chat string) answer {
	blocks := append([]Block(nil), a.blocks...)
	lines := strings.SplitAfter(blocks[i].Search, "\n")
	for k, l := range lines {
		if t := strings.TrimSpace(l); t != "" {
			indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
			lines[k] = indent + "stale_" + strings.TrimLeft(l, " \t")
			break
		}
	}
	blocks[i].Search = strings.Join(lines, "")
	return answer{Content: chat + renderBlocks(a.path, blocks)}
}

// callText is a tool call as models write it when they do not call tools.
func callText(c llm.ToolCall) string {
	return fmt.Sprintf(`{"name": %q, "arguments": %s}`, c.Name, c.Arguments)
}
