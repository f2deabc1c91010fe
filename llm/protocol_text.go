package llm

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// actionLine matches `name=>argument` at the start of a line.
var actionLine = regexp.MustCompile(`(?m)^[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*=>[ \t]?`)

// parseTextAction finds the action in a text-protocol reply: the first line
// of the form `name=>argument` naming a known tool, or the first non-empty
// line when it has that form (an unknown tool the model meant to call; it
// gets an error result). Other `x=>y` lines, such as arrow functions in an
// answer, are text. The argument runs to the end of the reply,
// so multi-line content (a spec, a file) fits; it is passed to the tool as
// JSON: verbatim when it is a JSON object, else as the value of the tool's
// first required string parameter (resolved in textArgs). No action line
// means the reply is the final answer.
func parseTextAction(content string, step int, known map[string]Tool) []ToolCall {
	var loc []int
	for _, l := range actionLine.FindAllStringSubmatchIndex(content, -1) {
		first := strings.TrimSpace(content[:l[0]]) == ""
		if _, ok := known[content[l[2]:l[3]]]; ok || first {
			loc = l
			break
		}
	}
	if loc == nil {
		return nil
	}
	name := content[loc[2]:loc[3]]
	arg := strings.TrimSpace(content[loc[1]:])
	// A reply fenced in ``` keeps the fence out of the argument.
	arg = strings.TrimSpace(strings.TrimSuffix(arg, "```"))
	return []ToolCall{{ID: fmt.Sprintf("text_%d", step), Name: name, Arguments: textArg(arg)}}
}

// textArg encodes a plain argument as {"":"..."} for textArgs to map; a
// JSON object passes through.
func textArg(arg string) string {
	if strings.HasPrefix(arg, "{") && json.Valid([]byte(arg)) {
		return arg
	}
	b, _ := json.Marshal(map[string]string{textArgKey: arg})
	return string(b)
}

// textArgKey marks the positional argument of a text action until the
// loop knows which tool parameter it fills.
const textArgKey = "\x00arg"

// mapTextArg rewrites a positional text argument into the tool's first
// required string parameter (or its only parameter).
func mapTextArg(spec ToolSpec, args string) string {
	var m map[string]string
	if json.Unmarshal([]byte(args), &m) != nil || len(m) != 1 {
		return args
	}
	v, ok := m[textArgKey]
	if !ok {
		return args
	}
	key := primaryParam(spec)
	if key == "" {
		return "{}"
	}
	b, _ := json.Marshal(map[string]string{key: v})
	return string(b)
}

type schemaDoc struct {
	Properties map[string]struct {
		Type        string `json:"type"`
		Description string `json:"description"`
	} `json:"properties"`
	Required []string `json:"required"`
}

func primaryParam(spec ToolSpec) string {
	var s schemaDoc
	if json.Unmarshal(spec.Parameters, &s) != nil {
		return ""
	}
	for _, r := range s.Required {
		if s.Properties[r].Type == "string" {
			return r
		}
	}
	if len(s.Properties) == 1 {
		for k := range s.Properties {
			return k
		}
	}
	return ""
}

// withTextProtocol prepends the instructions that teach the text protocol
// and list the actions, generated from the tools' specs.
func withTextProtocol(msgs []Message, specs []ToolSpec) []Message {
	var b strings.Builder
	b.WriteString("You act by writing exactly one action per reply, on its own line, in the form\n" +
		"name=>argument\n" +
		"The argument runs to the end of your reply. For actions with several parameters, write a JSON object: " +
		"name=>{\"param\": \"value\"}. A reply without an action line is your final answer.\n\nActions:\n")
	for _, s := range specs {
		fmt.Fprintf(&b, "- %s=>%s: %s\n", s.Name, argHint(s), s.Description)
	}
	out := make([]Message, 0, len(msgs)+1)
	out = append(out, Message{Role: System, Content: b.String()})
	return append(out, msgs...)
}

func argHint(spec ToolSpec) string {
	var s schemaDoc
	if json.Unmarshal(spec.Parameters, &s) != nil || len(s.Properties) == 0 {
		return "(nothing)"
	}
	if len(s.Properties) == 1 {
		return "<" + primaryParam(spec) + ">"
	}
	keys := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		keys = append(keys, fmt.Sprintf("%q: <%s>", k, s.Properties[k].Type))
	}
	sort.Strings(keys)
	return "{" + strings.Join(keys, ", ") + "}"
}
