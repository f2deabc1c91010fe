package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// normalizeCalls gives every call a unique id and splits arguments made of
// two or more JSON objects glued together ({…}{…}: parallel calls some
// models and servers write into one) into one call each.
func normalizeCalls(calls []ToolCall) []ToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]ToolCall, 0, len(calls))
	seen := map[string]bool{}
	add := func(tc ToolCall) {
		base := tc.ID
		for n := 2; tc.ID == "" || seen[tc.ID]; n++ {
			tc.ID = fmt.Sprintf("%s%d", base, n)
		}
		seen[tc.ID] = true
		out = append(out, tc)
	}
	for i, tc := range calls {
		if tc.ID == "" {
			tc.ID = fmt.Sprintf("call%05d", i) // 9 alphanumerics: Mistral's templates take no other
		}
		parts := gluedObjects(tc.Arguments)
		if len(parts) < 2 {
			add(tc)
			continue
		}
		for k, p := range parts {
			c := tc
			c.Arguments = p
			if k > 0 {
				c.Extra = nil
			}
			add(c)
		}
	}
	return out
}

// gluedObjects returns the objects of s when s is two or more JSON objects
// back to back, else nil.
func gluedObjects(s string) []string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") || json.Valid([]byte(s)) {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(s))
	var parts []string
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil || !isObject(string(raw)) || strings.TrimSpace(string(raw)) == "" {
			return nil
		}
		parts = append(parts, string(raw))
	}
	if len(parts) < 2 {
		return nil
	}
	return parts
}

// repairArgs returns tool-call arguments as one JSON object when they are
// one, or are one after removing what models wrap around it: a code fence,
// a JSON string holding the object, stray closing brackets after it. A
// truncated object is never completed (its last value would be cut). ok is
// false when no object could be read.
func repairArgs(args string) (fixed string, ok bool) {
	s := strings.TrimSpace(args)
	if s == "" {
		return "{}", true
	}
	if isObject(s) {
		return s, true
	}
	if f := stripFence(s); f != s && isObject(f) {
		return f, true
	}
	var inner string
	if json.Unmarshal([]byte(s), &inner) == nil && isObject(inner) && strings.TrimSpace(inner) != "" {
		return strings.TrimSpace(inner), true
	}
	dec := json.NewDecoder(strings.NewReader(s))
	var raw json.RawMessage
	if dec.Decode(&raw) == nil && isObject(string(raw)) {
		rest := strings.Trim(s[dec.InputOffset():], " \t\r\n}]")
		if rest == "" {
			return string(raw), true
		}
	}
	return "", false
}

// coerceArgs converts argument values written as strings to the type the
// tool's schema asks for ("offset":"10" → 10, "all":"true" → true, a
// list written as a JSON string → the list). Anything else is left for the
// tool to report.
func coerceArgs(args string, schema json.RawMessage) string {
	var s struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return args
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &fields) != nil {
		return args
	}
	changed := false
	for k, v := range fields {
		var str string
		if json.Unmarshal(v, &str) != nil {
			continue
		}
		str = strings.TrimSpace(str)
		var conv json.RawMessage
		switch s.Properties[k].Type {
		case "integer":
			if _, err := strconv.ParseInt(str, 10, 64); err == nil {
				conv = json.RawMessage(str)
			}
		case "number":
			if _, err := strconv.ParseFloat(str, 64); err == nil {
				conv = json.RawMessage(str)
			}
		case "boolean":
			if b, err := strconv.ParseBool(str); err == nil {
				conv = json.RawMessage(strconv.FormatBool(b))
			}
		case "array", "object":
			if json.Valid([]byte(str)) && (strings.HasPrefix(str, "[") || strings.HasPrefix(str, "{")) {
				conv = json.RawMessage(str)
			}
		}
		if conv != nil {
			fields[k], changed = conv, true
		}
	}
	if !changed {
		return args
	}
	b, err := json.Marshal(fields)
	if err != nil {
		return args
	}
	return string(b)
}
