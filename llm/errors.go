package llm

import (
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/issuesmith/issuesmith/internal/redact"
)

// Errors of model access. Wrapped errors keep the server's message.
var (
	// ErrUnreachable: the endpoint could not be contacted (the error names
	// the base URL setting, ISSUESMITH_MODEL_BASE_URL for bot serve).
	ErrUnreachable = errors.New("model endpoint unreachable")
	// ErrAuth: the endpoint refused the key (the error names the API key
	// setting).
	ErrAuth = errors.New("model endpoint refused the api key")
	// ErrModelNotFound: the endpoint does not serve the model.
	ErrModelNotFound = errors.New("model not found")
	// ErrRateLimited: still rate limited after retries.
	ErrRateLimited = errors.New("rate limited")
	// ErrTimeout: an attempt got no reply within Config.Timeout.
	ErrTimeout = errors.New("model call timed out")
	// ErrMalformedReply: the server's reply could not be understood.
	ErrMalformedReply = errors.New("malformed model reply")
	// ErrInvalidJSON: a reply that had to be JSON was not.
	ErrInvalidJSON = errors.New("model reply is not valid JSON")
	// ErrContextLength: the prompt does not fit the model's context window
	// (the endpoint refused it, or cut it silently). Agent.Run ends such a
	// run as StopContextWindow, keeping what it gathered.
	ErrContextLength = errors.New("prompt exceeds the model's context window")
	// ErrQuota: the account behind the key has no quota or credit left
	// (OpenAI's 429 insufficient_quota); retrying does not help.
	ErrQuota = errors.New("model account out of quota")
	// ErrNoToolSupport: the endpoint cannot give this model tools (Ollama's
	// "does not support tools", vLLM without --enable-auto-tool-choice);
	// the error names the protocol setting that switches to text actions.
	ErrNoToolSupport = errors.New("model endpoint cannot call tools for this model")
)

// explain turns a final transport error into one that names what to fix,
// with the API key scrubbed from whatever the server echoed.
func (c *Client) explain(r resolved, role Role, err error) error {
	return hideKey(c.explainRaw(r, role, err), c.cfg.APIKey)
}

func (c *Client) explainRaw(r resolved, role Role, err error) error {
	code, _ := statusOf(err)
	switch {
	case errors.Is(err, ErrContextLength), errors.Is(err, ErrTimeout):
		return err
	case maxTokensTooLarge(err):
		return &ModelFailure{Role: role, Kind: ErrMaxTokens, Err: err,
			Cause: fmt.Sprintf("%q at %s was refused: its completion cap (max_tokens) plus the prompt exceed the model's context window", r.model, c.base),
			Fix: fmt.Sprintf("lower %s (or %s (%s:N) for this role), or serve the model with a larger window (vLLM --max-model-len)",
				c.cfg.setting("max_tokens"), c.cfg.setting("roles."+string(role)+".max_tokens"), role)}
	case templateError(err):
		return &ModelFailure{Role: role, Kind: ErrTemplate, Err: err,
			Cause: fmt.Sprintf("%q at %s could not be asked: the server's chat template refused the request (not retried: the same request fails the same way)", r.model, c.base),
			Fix: fmt.Sprintf("start the server with the model's own tool-calling template (llama.cpp --jinja, or --chat-template-file), "+
				"or use the text protocol: %s (%s:%s)", c.cfg.setting("roles."+string(role)+".protocol"), role, ProtocolText)}
	case contextTooLong(err):
		return fmt.Errorf("%w: model %q: %w", ErrContextLength, r.model, err)
	case outOfQuota(err):
		return fmt.Errorf("%w: model %q at %s: the account has no quota or credit left (check its plan and billing; "+
			"retrying does not help): %w", ErrQuota, r.model, c.base, err)
	case noToolSupport(err):
		return fmt.Errorf("%w: model %q at %s: use the text protocol for it: set %s (%s=%s) or %s (%s:%s): %w",
			ErrNoToolSupport, r.model, c.base, c.cfg.setting("protocols."+r.model), r.model, ProtocolText,
			c.cfg.setting("roles."+string(role)+".protocol"), role, ProtocolText, err)
	case errors.Is(err, syscall.ECONNREFUSED) || isDNSError(err) || isTLSError(err):
		return fmt.Errorf("%w: %s (check %s): %w", ErrUnreachable, c.base, c.cfg.setting("base_url"), err)
	case code == 401 || code == 403:
		return fmt.Errorf("%w: %s answered %d (check %s): %w", ErrAuth, c.base, code, c.cfg.setting("api_key"), err)
	case code == 404:
		return fmt.Errorf("%w: %s answered 404 for model %q (check %s and %s): %w", ErrModelNotFound, c.base, r.model,
			c.cfg.setting(r.modelKey), c.cfg.setting("base_url"), err)
	case code == 429:
		return fmt.Errorf("%w: model %q: %w", ErrRateLimited, r.model, err)
	}
	return fmt.Errorf("model %q at %s: %w", r.model, c.base, err)
}

// redactedError hides the API key in an error's text and keeps the chain
// for errors.Is/As (the roles tell a server's errors apart by type; the
// chain's own texts quote no key: servers echo one only in a message, which
// this is). Only the exact key is cut: an error's other words are the
// server's diagnosis, which internal/redact's shapes could mangle.
type redactedError struct {
	err    error
	secret string
}

func (e *redactedError) Error() string {
	return strings.ReplaceAll(e.err.Error(), e.secret, redact.Marker)
}

func (e *redactedError) Unwrap() error { return e.err }

func hideKey(err error, secret string) error {
	if err == nil || len(secret) < 4 || !strings.Contains(err.Error(), secret) {
		return err
	}
	return &redactedError{err: err, secret: secret}
}

func isTLSError(err error) bool {
	var ce *tls.CertificateVerificationError
	var re tls.RecordHeaderError
	// net/http reports an https URL answered in plain HTTP only as text.
	return errors.As(err, &ce) || errors.As(err, &re) ||
		strings.Contains(err.Error(), "server gave HTTP response to HTTPS client")
}

// contextTooLong recognises the servers' ways of saying the prompt is too
// long: OpenAI's code, vLLM's, Ollama's and DeepSeek's messages,
// llama.cpp's ("the request exceeds the available context size", type
// exceed_context_size_error, sent with 400 or 500:
// https://github.com/ggml-org/llama.cpp/pull/15780) and Gemini's ("The
// input token count (N) exceeds the maximum number of tokens allowed (M)":
// https://github.com/google-gemini/gemini-cli/issues/4118).
func contextTooLong(err error) bool {
	if code, ok := statusOf(err); ok && code != 400 && code != 413 && code != 500 {
		return false
	}
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"context_length_exceeded", "maximum context length", "context length", "context window",
		"too many tokens", "prompt is too long", "exceeds the available context size", "exceed_context_size_error",
		"maximum number of tokens allowed"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// outOfQuota recognises OpenAI's 429 insufficient_quota ("You exceeded your
// current quota"), which no wait cures.
func outOfQuota(err error) bool {
	code, _ := statusOf(err)
	msg := strings.ToLower(err.Error())
	return code == 429 && (strings.Contains(msg, "insufficient_quota") || strings.Contains(msg, "exceeded your current quota"))
}

// noToolSupport recognises a server refusing tools for the model: Ollama's
// "<model> does not support tools"
// (https://github.com/ollama/ollama/issues/5793) and vLLM's "\"auto\" tool
// choice requires --enable-auto-tool-choice and --tool-call-parser to be
// set" (https://github.com/vllm-project/vllm/issues/9986).
func noToolSupport(err error) bool {
	code, _ := statusOf(err)
	msg := strings.ToLower(err.Error())
	return (code == 400 || code == 422 || code == 500) &&
		(strings.Contains(msg, "does not support tools") || strings.Contains(msg, "enable-auto-tool-choice"))
}

// maxTokensTooLarge recognises vLLM's refusal of the completion cap itself
// ("'max_tokens' or 'max_completion_tokens' is too large: 8192. This
// model's maximum context length is 8192 tokens and your request has 1312
// input tokens"), which names the context length too but is cured by a
// smaller cap, not a shorter prompt.
func maxTokensTooLarge(err error) bool {
	if code, ok := statusOf(err); ok && code != 400 && code != 422 {
		return false
	}
	msg := strings.ToLower(err.Error())
	return (strings.Contains(msg, "max_tokens") || strings.Contains(msg, "max_completion_tokens")) &&
		(strings.Contains(msg, "too large") || strings.Contains(msg, "must be less than") || strings.Contains(msg, "is greater than"))
}

// templateError recognises a server whose chat template (Jinja) refused
// the request: llama.cpp and vLLM answer the template's raise_exception with
// 500 or 400 and its message ("Tool call IDs should be alphanumeric strings
// with length 9!", "Conversation roles must alternate", "Error rendering
// template", "jinja2.exceptions.TemplateError"). A deterministic refusal:
// no retry helps.
func templateError(err error) bool {
	code, ok := statusOf(err)
	if !ok || (code != 400 && code != 422 && code != 500) {
		return false
	}
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"jinja", "chat template", "chat_template", "rendering template", "templateerror",
		"raise_exception", "tool call ids should be alphanumeric", "roles must alternate"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
