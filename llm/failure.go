package llm

import (
	"errors"
	"fmt"
	"strings"
)

// ErrModelFailed marks a run that ended because of the model or its server,
// not because of the task: prose where a tool call was needed, tool calls in
// a shape the bot cannot run, a context overflow, replies cut at the output
// limit, a repetition loop, a server that refused the request's settings.
// Only a run ending otherwise may ask the author anything.
var ErrModelFailed = errors.New("the model failed, not the issue")

// ErrMaxTokens: the server refused the completion cap itself (vLLM's
// "'max_tokens' or 'max_completion_tokens' is too large": the cap plus the
// prompt exceed the model's window); the error names the setting to lower.
var ErrMaxTokens = errors.New("the completion cap does not fit the model's context window")

// ErrTemplate: the server's chat template refused the request (a 500 naming
// Jinja or the template: llama.cpp, vLLM, LM Studio). The same request fails
// the same way, so it is not retried; the error names the setting that
// avoids it.
var ErrTemplate = errors.New("the server's chat template refused the request")

// ErrRepetition: the model's reply repeated the same text over and over
// (a repetition loop); the stream is cut as soon as it shows.
var ErrRepetition = errors.New("the model repeated itself")

// ModelFailure is a run the model or its server ended: which role, the
// agent loop's stop reason, what the model did in words and the setting to
// change. errors.Is(f, ErrModelFailed) holds for every one, and
// errors.Is(f, Kind) for its kind when set.
type ModelFailure struct {
	Role   Role
	Reason StopReason
	// Cause says what the model or server did ("answered in prose every
	// turn instead of calling a tool").
	Cause string
	// Fix names what to change (a setting, with its value).
	Fix string
	// Kind is a sentinel of this package when one applies
	// (ErrContextLength, ErrMaxTokens, ErrRepetition, ...).
	Kind error
	// Err is the server's error behind it, if any.
	Err error
}

func (f *ModelFailure) Error() string {
	var b strings.Builder
	b.WriteString(ErrModelFailed.Error())
	b.WriteString(": ")
	if f.Role != "" {
		fmt.Fprintf(&b, "the %s's model ", f.Role)
	} else {
		b.WriteString("the model ")
	}
	b.WriteString(f.Cause)
	if f.Reason != "" && f.Reason != StopFinished && f.Reason != StopModelError {
		fmt.Fprintf(&b, " (%s)", f.Reason)
	}
	if f.Fix != "" {
		b.WriteString(". To fix: " + f.Fix)
	}
	if f.Err != nil && !strings.Contains(f.Cause, f.Err.Error()) {
		b.WriteString(". The server said: " + f.Err.Error())
	}
	return b.String()
}

// Is matches ErrModelFailed and the failure's Kind.
func (f *ModelFailure) Is(target error) bool {
	return target == ErrModelFailed || (f.Kind != nil && target == f.Kind)
}

func (f *ModelFailure) Unwrap() error { return f.Err }

// Placeholders the agent loop puts in the history for a reply that had no
// usable text; IsPlaceholder tells them apart from the model's words, so none
// ever becomes spec, plan or item text.
const (
	PlaceholderCut      = "(reply cut off at the output limit)"
	PlaceholderEmpty    = "(empty reply)"
	PlaceholderRepeated = "(reply cut off: the model repeated itself)"
)

// IsPlaceholder reports whether text is one of the loop's placeholders.
func IsPlaceholder(text string) bool {
	switch strings.TrimSpace(text) {
	case PlaceholderCut, PlaceholderEmpty, PlaceholderRepeated:
		return true
	}
	return false
}

// StopFailure is the ModelFailure of a run of role that stopped with reason
// without doing its job, or nil when reason is no model failure (a budget,
// the step limit, a cancelled run). last is the model's last reply (to tell
// prose from a call written as text), detail the loop's Outcome.Detail, err
// its Outcome.Err.
func StopFailure(role Role, reason StopReason, last, detail string, err error) *ModelFailure {
	protocol := fmt.Sprintf("if the model cannot call tools, set ISSUESMITH_MODEL_ROLE_PROTOCOLS (%s:text) "+
		"or roles.%s.protocol: text in .github/issuesmith.yml; else use a model that calls tools", role, role)
	f := &ModelFailure{Role: role, Reason: reason, Err: err}
	switch reason {
	case StopRepetition:
		f.Kind, f.Cause = ErrRepetition, "repeated itself (the same text over and over until it was cut)"
		f.Fix = "set the temperature the model's card recommends (ISSUESMITH_MODEL_ROLE_TEMPERATURES), " +
			"set a repetition penalty on the server, or use a larger model"
	case StopOutputLimit:
		f.Cause = "had every reply cut at the output limit (finish_reason \"length\")"
		f.Fix = "raise ISSUESMITH_MODEL_MAX_COMPLETION_TOKENS (or ISSUESMITH_MODEL_ROLE_MAX_COMPLETION_TOKENS (" +
			string(role) + ":N); the server's own cap too: Ollama num_predict, llama.cpp --n-predict), or use a model that thinks less"
	case StopContextWindow:
		f.Kind, f.Cause = ErrContextLength, "could not be given the conversation: it did not fit the model's context window"
		f.Fix = "serve the model with a larger window (Ollama num_ctx, llama.cpp --ctx-size, vLLM --max-model-len), " +
			"or give the " + string(role) + " a model with a larger one (ISSUESMITH_MODEL_ROLES " + string(role) + ":NAME)"
		var cut *truncatedErr
		if errors.As(err, &cut) {
			f.Kind, f.Err = ErrTruncated, nil // the evidence is the cause: no server said it
			f.Cause = "answered a prompt its server had cut to fit a smaller context window, so the reply was not used (" +
				cut.evidence() + ")"
			f.Fix = "serve the model with a larger window: " + cut.window.Setting() + "; or give the " + string(role) +
				" a model served with one (ISSUESMITH_MODEL_ROLES " + string(role) + ":NAME)"
		}
		if errors.Is(err, ErrMaxTokens) {
			f.Kind, f.Cause = ErrMaxTokens, "was refused by the server: the completion cap plus the prompt exceed the model's context window"
			f.Fix = "lower ISSUESMITH_MODEL_MAX_COMPLETION_TOKENS (or roles." + string(role) + ".max_completion_tokens), or serve a larger window"
		}
	case StopNoAction:
		f.Cause = "gave no usable reply: " + detail
		f.Fix = protocol
		if detail == "" {
			f.Cause = "gave no usable reply (empty, refused or malformed every turn)"
		}
	case StopLoop:
		f.Cause, f.Fix = "kept repeating the same action", "use a stronger model for the "+string(role)+" role (ISSUESMITH_MODEL_ROLES)"
	case StopFinished:
		switch t := strings.TrimSpace(AnswerText(last)); {
		case LooksLikeTextCall(t):
			f.Cause = "wrote its tool calls as text in a shape the bot cannot run, every turn"
		case t == "" || IsPlaceholder(t):
			f.Cause = "gave empty replies instead of calling a tool"
		default:
			f.Cause = "answered in prose every turn instead of calling a tool"
		}
		f.Fix = protocol
	default:
		return nil
	}
	return f
}

// CallFailure is the ModelFailure of role's model call that failed for
// good because of the model: the client's own (a template or cap refusal),
// or a prompt over the model's context window or cut to fit one; nil for
// any other error (unreachable, a refused key, a spent budget: no failure
// of the model).
func CallFailure(role Role, err error) *ModelFailure {
	var f *ModelFailure
	switch {
	case errors.As(err, &f):
		return f
	case errors.Is(err, ErrContextLength), errors.Is(err, ErrTruncated):
		return StopFailure(role, StopContextWindow, "", "", err)
	}
	return nil
}
