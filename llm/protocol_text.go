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
// answer, are text. No action line means the reply is the final answer.
//
// The argument is the rest of the action line; when that is empty, it is
// every following line (multi-line content such as a spec); when it starts
// with '{', it is the JSON object there, which may span lines. A plain
// argument fills the tool's first required string parameter (textArgs).
// ignored counts further actions after the argument: one action per reply.
func parseTextAction(content string, step int, known map[string]Tool) (calls []ToolCall, ignored int) {
	all := actionLine.FindAllStringSubmatchIndex(content, -1)
	for i, l := range all {
		name := content[l[2]:l[3]]
		_, ok := known[name]
		if !ok && strings.TrimSpace(content[:l[0]]) != "" {
			continue
		}
		args, used := textArgs(content[l[1]:], known[name])
		end := l[1] + used
		for _, later := range all[i+1:] {
			if _, ok := known[content[later[2]:later[3]]]; ok && later[0] >= end {
				ignored++
			}
		}
		return []ToolCall{{ID: fmt.Sprintf("text_%d", step), Name: name, Arguments: args}}, ignored
	}
	return nil, 0
}

// textArgs turns the text after `=>` into the tool's JSON arguments and
// says how many bytes of rest the argument used. A JSON object passes
// through; plain text fills t's first required string parameter
// ("argument" when t is unknown, which only ends up in logs).
func textArgs(rest string, t Tool) (string, int) {
	plain, obj, used := splitTextArg(rest)
	if obj != "" {
		return obj, used
	}
	key := "argument"
	if t != nil {
		if key = primaryParam(t.Spec()); key == "" {
			return "{}", used
		}
	}
	b, _ := json.Marshal(map[string]string{key: plain})
	return string(b), used
}

// splitTextArg reads the argument: the rest of the line, else the
// following lines, or a JSON object (returned as obj) which may span lines.
func splitTextArg(rest string) (plain, obj string, used int) {
	line, after, _ := strings.Cut(rest, "\n")
	lineEnd := len(line)
	line = strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(line, "{"):
		trimmed := strings.TrimLeft(rest, " \t")
		dec := json.NewDecoder(strings.NewReader(trimmed))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == nil {
			return "", string(raw), len(rest) - len(trimmed) + int(dec.InputOffset())
		}
		return line, "", lineEnd // not JSON after all: the tool reports the mistake
	case line == "":
		// A block fenced in ``` keeps the closing fence out.
		block := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(after), "```"))
		if o := wholeObject(block); o != "" {
			return "", o, len(rest) // the JSON object written under the action line
		}
		return block, "", len(rest)
	}
	return line, "", lineEnd
}

// wholeObject returns block as a JSON object when it is exactly one (after
// an optional ```json fence line), else "".
func wholeObject(block string) string {
	if first, body, ok := strings.Cut(block, "\n"); ok && strings.HasPrefix(strings.TrimSpace(first), "```") {
		block = strings.TrimSpace(body)
	}
	if !strings.HasPrefix(block, "{") || !strings.HasSuffix(block, "}") {
		return ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(block), &obj) != nil {
		return ""
	}
	return block
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
	// No required string: the only string parameter, if there is one
	// (list_dir=>src means the path, not "no arguments").
	var str []string
	for k, p := range s.Properties {
		if p.Type == "string" {
			str = append(str, k)
		}
	}
	if len(str) == 1 {
		return str[0]
	}
	if len(s.Properties) == 1 {
		for k := range s.Properties {
			return k
		}
	}
	return ""
}

// withTextProtocol adds the instructions that teach the text protocol and
// list the actions (generated from the tools' specs) to the system message,
// or as one when there is none.
func withTextProtocol(msgs []Message, specs []ToolSpec) []Message {
	var b strings.Builder
	b.WriteString("You act by writing exactly one action per reply, on its own line, in the form\n" +
		"name=>argument\n" +
		"The argument is the rest of that line. For a multi-line argument, end the line after => and write " +
		"the argument on the following lines, to the end of your reply. For actions with several parameters, " +
		"write a JSON object: name=>{\"param\": \"value\"}. A reply without an action line is your final " +
		"answer.\n\nActions:\n")
	for _, s := range specs {
		fmt.Fprintf(&b, "- %s=>%s: %s\n", s.Name, argHint(s), s.Description)
	}
	b.WriteString(textExample(specs))
	out := make([]Message, 0, len(msgs)+1)
	if len(msgs) > 0 && msgs[0].Role == System {
		// One system message: some servers accept no second one.
		first := msgs[0]
		first.Content += "\n\n" + b.String()
		return append(append(out, first), msgs[1:]...)
	}
	out = append(out, Message{Role: System, Content: b.String()})
	return append(out, msgs...)
}

// textExample is a worked example built from the run's own actions: a
// one-argument action on one line, and a several-parameter one as JSON.
func textExample(specs []ToolSpec) string {
	var one, oneTool, multi string
	for _, s := range specs {
		if p := primaryParam(s); p != "" {
			one, oneTool = fmt.Sprintf("%s=>%s", s.Name, exampleValue(p)), s.Name
			break
		}
	}
	for pass := 0; pass < 2 && multi == ""; pass++ {
		for _, s := range specs {
			if pass == 0 && s.Name == oneTool {
				continue // show a second action when there is one
			}
			if multi = multiExample(s); multi != "" {
				break
			}
		}
	}
	if one == "" && multi == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nExample of a correct reply (one short sentence of thought, then the action line, nothing after it):\n")
	if one != "" {
		fmt.Fprintf(&b, "I need to see this first.\n%s\n", one)
	}
	if multi != "" {
		fmt.Fprintf(&b, "Another correct reply:\n%s\n", multi)
	}
	b.WriteString("Do not wrap the action line in code fences or JSON tool-call syntax.\n")
	return b.String()
}

// multiExample shows s's first two parameters as a JSON argument, or ""
// when s has fewer than two.
func multiExample(s ToolSpec) string {
	var doc schemaDoc
	if json.Unmarshal(s.Parameters, &doc) != nil || len(doc.Properties) < 2 {
		return ""
	}
	keys := make([]string, 0, len(doc.Properties))
	for k := range doc.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fields := make([]string, 0, 2)
	for _, k := range keys[:2] {
		v := `"` + exampleValue(k) + `"`
		switch doc.Properties[k].Type {
		case "integer", "number":
			v = "1"
		case "boolean":
			v = "true"
		case "array":
			v = "[]"
		}
		fields = append(fields, fmt.Sprintf("%q: %s", k, v))
	}
	return fmt.Sprintf("%s=>{%s}", s.Name, strings.Join(fields, ", "))
}

func exampleValue(param string) string {
	switch p := strings.ToLower(param); {
	case strings.Contains(p, "path") || strings.Contains(p, "file"):
		return "src/app.go"
	case strings.Contains(p, "pattern") || strings.Contains(p, "query"):
		return "func main"
	}
	return "value"
}

func argHint(spec ToolSpec) string {
	var s schemaDoc
	if json.Unmarshal(spec.Parameters, &s) != nil || len(s.Properties) == 0 {
		return "(nothing)"
	}
	if len(s.Properties) == 1 {
		return "<" + primaryParam(spec) + ">"
	}
	var node schemaNode
	if json.Unmarshal(spec.Parameters, &node) != nil {
		return "(nothing)"
	}
	return node.hint()
}

// schemaNode is the part of a JSON schema the argument hint shows.
type schemaNode struct {
	Type       string                 `json:"type"`
	Properties map[string]*schemaNode `json:"properties"`
	Items      *schemaNode            `json:"items"`
}

// hint shows a value's shape: objects with their keys and arrays with their
// element's shape, so a model writing JSON by hand knows the nested keys
// (a list of objects is otherwise just "<array>").
func (n *schemaNode) hint() string {
	switch {
	case n == nil:
		return "<value>"
	case len(n.Properties) > 0:
		keys := make([]string, 0, len(n.Properties))
		for k, v := range n.Properties {
			keys = append(keys, fmt.Sprintf("%q: %s", k, v.hint()))
		}
		sort.Strings(keys)
		return "{" + strings.Join(keys, ", ") + "}"
	case n.Type == "array" && n.Items != nil:
		return "[" + n.Items.hint() + ", …]"
	case n.Type == "":
		return "<value>"
	}
	return "<" + n.Type + ">"
}

// withReminder ends the request with reminder (Agent.Reminder): a copy of
// msgs whose last message, a tool result or a user message, carries it.
// In the text protocol with actions it names their form. After an
// assistant message or with no reminder, msgs is returned as it is.
func withReminder(msgs []Message, reminder string, p Protocol, actions int) []Message {
	if reminder == "" || len(msgs) == 0 {
		return msgs
	}
	last := msgs[len(msgs)-1]
	if last.Role != ToolRole && last.Role != User {
		return msgs
	}
	if p == ProtocolText && actions > 0 {
		reminder += " To use a tool, write name=>argument on its own line."
	}
	out := append([]Message(nil), msgs...)
	last.Content = strings.TrimRight(last.Content, "\n") + "\n\n<reminder>" + reminder + "</reminder>"
	out[len(out)-1] = last
	return out
}
