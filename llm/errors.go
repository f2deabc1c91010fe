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
