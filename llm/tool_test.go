package llm_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
)

type grepParams struct {
	Pattern string            `json:"pattern" desc:"RE2 regular expression"`
	Paths   []string          `json:"paths,omitempty" jsonschema:"description=globs to search"`
	Max     *int              `json:"max,omitempty"`
	Mode    string            `json:"mode,omitempty" enum:"lines,files"`
	Labels  map[string]string `json:"labels,omitempty"`
	Nested  struct {
		On bool `json:"on"`
	} `json:"nested,omitempty"`
	Ignored string `json:"-"`
	hidden  string //nolint:unused // unexported fields stay out of the schema
}

func TestNewToolSchema(t *testing.T) {
	t.Parallel()
	tool := llm.NewTool("grep", "Search files.", func(context.Context, grepParams) (llm.ToolResult, error) {
		return llm.ToolResult{}, nil
	})
	spec := tool.Spec()
	assert.Equal(t, "grep", spec.Name)
	assert.JSONEq(t, `{
	  "type": "object",
	  "additionalProperties": false,
	  "required": ["pattern"],
	  "properties": {
	    "pattern": {"type": "string", "description": "RE2 regular expression"},
	    "paths": {"type": "array", "items": {"type": "string"}, "description": "globs to search"},
	    "max": {"type": "integer"},
	    "mode": {"type": "string", "enum": ["lines", "files"]},
	    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
	    "nested": {"type": "object", "additionalProperties": false, "required": ["on"],
	               "properties": {"on": {"type": "boolean"}}}
	  }
	}`, string(spec.Parameters))
}

func TestNewToolDecodesAndReportsMistakes(t *testing.T) {
	t.Parallel()
	var got grepParams
	tool := llm.NewTool("grep", "Search files.", func(_ context.Context, p grepParams) (llm.ToolResult, error) {
		got = p
		return llm.ToolResult{Content: "ok"}, nil
	})
	res, err := tool.Call(t.Context(), json.RawMessage(`{"pattern":"x","max":3,"paths":["*.go"]}`))
	require.NoError(t, err)
	assert.Equal(t, "ok", res.Content)
	assert.Equal(t, "x", got.Pattern)
	assert.Equal(t, 3, *got.Max)

	for args, want := range map[string]string{
		`[1,2]`:                       "arguments must be one JSON object",
		`{}`:                          "missing required argument(s): pattern",
		`{"pattern":"x","extra":1}`:   `unknown field "extra"`,
		`{"pattern":"x","max":"ten"}`: "cannot unmarshal string",
	} {
		res, err := tool.Call(t.Context(), json.RawMessage(args))
		require.NoError(t, err, args)
		assert.True(t, res.IsError, args)
		assert.Contains(t, res.Content, want, args)
	}
}

func TestNewToolPanicsOnNonStruct(t *testing.T) {
	t.Parallel()
	assert.Panics(t, func() {
		llm.NewTool("bad", "", func(context.Context, string) (llm.ToolResult, error) { return llm.ToolResult{}, nil })
	})
}
