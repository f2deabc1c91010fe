package session

import (
	"context"
	"strconv"
	"strings"

	"github.com/issuesmith/issuesmith/llm"
)

type ctxKey struct{}

// With returns ctx carrying r: the decorators of WrapModel and WrapTool, and
// any code that calls From, record to it.
func With(ctx context.Context, r *Recorder) context.Context {
	return context.WithValue(ctx, ctxKey{}, r)
}

// From returns the Recorder ctx carries, or nil (which records nothing).
func From(ctx context.Context) *Recorder {
	r, _ := ctx.Value(ctxKey{}).(*Recorder)
	return r
}

// WrapModel returns m recording each call to the Recorder of the call's
// context (none: nothing is recorded). Wrap a model once where it is built.
func WrapModel(m llm.Model) llm.Model { return &model{next: m} }

// WrapTool returns t recording each call to the Recorder of the call's
// context.
func WrapTool(t llm.Tool) llm.Tool { return &tool{next: t} }

// Link is the address of session id on the sessions page of the bot at
// publicURL ("" when there is no page: no public URL, or no session).
func Link(publicURL string, id int64) string {
	if publicURL == "" || id <= 0 {
		return ""
	}
	return strings.TrimSuffix(publicURL, "/") + "/sessions/" + strconv.FormatInt(id, 10)
}
