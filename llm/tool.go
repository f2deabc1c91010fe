package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// NewTool builds a Tool from a function taking a params struct P. The JSON
// schema is generated from P's exported fields: the `json` tag gives the
// name (a field tagged "-" is skipped), `desc:"..."` or
// `jsonschema:"description=..."` the description, `enum:"a,b"` allowed
// values; a field is required unless its json tag has omitempty.
//
// Call decodes the model's arguments strictly; invalid JSON, unknown or
// missing fields and wrong types come back as IsError results naming the
// problem, so the model can correct itself. NewTool panics when P is not a
// struct: that is a programming error found by the first test.
func NewTool[P any](name, description string, fn func(context.Context, P) (ToolResult, error)) Tool {
	var zero P
	t := reflect.TypeOf(zero)
	if t == nil || t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("llm.NewTool(%q): params must be a struct, got %v", name, t))
	}
	schema := schemaOf(t)
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("llm.NewTool(%q): schema: %v", name, err))
	}
	req, _ := schema["required"].([]string)
	return &funcTool[P]{spec: ToolSpec{Name: name, Description: description, Parameters: raw}, required: req, fn: fn}
}

type funcTool[P any] struct {
	spec     ToolSpec
	required []string
	fn       func(context.Context, P) (ToolResult, error)
}

func (t *funcTool[P]) Spec() ToolSpec { return t.spec }

func (t *funcTool[P]) Call(ctx context.Context, args json.RawMessage) (ToolResult, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(args, &fields); err != nil {
		return ErrorResult("arguments must be one JSON object: %v", err), nil
	}
	var missing []string
	for _, r := range t.required {
		if _, ok := fields[r]; !ok {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		return ErrorResult("missing required argument(s): %s", strings.Join(missing, ", ")), nil
	}
	var p P
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return ErrorResult("bad arguments for %s: %v (schema: %s)", t.spec.Name, err, t.spec.Parameters), nil
	}
	return t.fn(ctx, p)
}

// ErrorResult is a model-fixable failure: an IsError result with a
// formatted message.
func ErrorResult(format string, args ...any) ToolResult {
	return ToolResult{Content: fmt.Sprintf(format, args...), IsError: true}
}

// schemaOf returns the JSON schema of a struct type.
func schemaOf(t reflect.Type) map[string]any {
	props := map[string]any{}
	required := []string{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		s := typeSchema(f.Type)
		if d := describe(f.Tag); d != "" {
			s["description"] = d
		}
		if e := f.Tag.Get("enum"); e != "" {
			s["enum"] = strings.Split(e, ",")
		}
		props[name] = s
		if !strings.Contains(opts, "omitempty") {
			required = append(required, name)
		}
	}
	sort.Strings(required)
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

func describe(tag reflect.StructTag) string {
	if d := tag.Get("desc"); d != "" {
		return d
	}
	for _, part := range strings.Split(tag.Get("jsonschema"), ",") {
		if d, ok := strings.CutPrefix(part, "description="); ok {
			return d
		}
	}
	return ""
}

func typeSchema(t reflect.Type) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": typeSchema(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": typeSchema(t.Elem())}
	case reflect.Struct:
		return schemaOf(t)
	}
	return map[string]any{}
}
