package ghtest

import (
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
)

// responseSchema returns the JSON schema of op's answer with status, or nil.
func responseSchema(route *routers.Route, status int) *openapi3.Schema {
	rr := route.Operation.Responses.Status(status)
	if rr == nil || rr.Value == nil {
		return nil
	}
	mt := rr.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return nil
	}
	return mt.Schema.Value
}

// complete fills what the handler left out of v with values of the
// documented type — nulls where GitHub may send null, placeholder URLs and
// times, zeros, first enum values — so answers carry GitHub's whole shape.
// Values the handler set are kept as they are; the response check still
// judges them.
func complete(s *openapi3.Schema, v any) any {
	if s == nil {
		return v
	}
	for _, sub := range s.AllOf {
		v = complete(sub.Value, v)
	}
	if branch := chooseBranch(s, v); branch != nil {
		return complete(branch, v)
	}
	switch x := v.(type) {
	case map[string]any:
		for name, p := range s.Properties {
			if cur, ok := x[name]; ok {
				x[name] = complete(p.Value, cur)
			} else if slices.Contains(s.Required, name) {
				x[name] = placeholder(p.Value)
			}
		}
		return x
	case []obj:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return complete(s, out)
	case []any:
		if s.Items != nil {
			for i := range x {
				x[i] = complete(s.Items.Value, x[i])
			}
		}
		return x
	}
	return v
}

// chooseBranch picks the oneOf/anyOf branch v was written for: the one whose
// enum-valued properties v matches, with most of v's keys.
func chooseBranch(s *openapi3.Schema, v any) *openapi3.Schema {
	branches := s.OneOf
	if len(branches) == 0 {
		branches = s.AnyOf
	}
	if len(branches) == 0 {
		return nil
	}
	m, _ := v.(map[string]any)
	var best *openapi3.Schema
	bestScore := -1
	for _, b := range branches {
		bs := b.Value
		if bs == nil {
			continue
		}
		score := 0
		for k, val := range m {
			p, ok := bs.Properties[k]
			if !ok {
				continue
			}
			score++
			if p.Value != nil && len(p.Value.Enum) > 0 && !slices.Contains(p.Value.Enum, val) {
				score = -1000
			}
		}
		if _, isArr := v.([]any); isArr && bs.Type.Is("array") {
			score = 1000
		}
		if score > bestScore {
			best, bestScore = bs, score
		}
	}
	return best
}

// placeholder is a value of schema s for a field the fake does not model.
func placeholder(s *openapi3.Schema) any {
	if s == nil || s.Nullable {
		return nil
	}
	if len(s.AllOf) > 0 || len(s.OneOf) > 0 || len(s.AnyOf) > 0 {
		for _, group := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
			if len(group) > 0 && group[0].Value != nil {
				if group[0].Value.Nullable {
					return nil
				}
				return complete(s, placeholder(group[0].Value))
			}
		}
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	switch {
	case s.Type.Is("object"):
		return complete(s, map[string]any{})
	case s.Type.Is("array"):
		return []any{}
	case s.Type.Is("integer"), s.Type.Is("number"):
		if s.Min != nil {
			return *s.Min
		}
		return 0
	case s.Type.Is("boolean"):
		return false
	case s.Type.Is("string"):
		switch s.Format {
		case "date-time":
			return "2026-01-01T00:00:00Z"
		case "uri", "url", "uri-template":
			return "https://api.github.invalid/placeholder"
		case "email":
			return "placeholder@example.invalid"
		}
		return ""
	}
	return nil
}
