package llm

import (
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"syscall"
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
	// ErrContextLength: the prompt does not fit the model's context window.
	// Agent.Run ends such a run as StopTokenBudget, keeping what it gathered.
	ErrContextLength = errors.New("prompt exceeds the model's context window")
)

// explain turns a final transport error into one that names what to fix,
// with the API key scrubbed from whatever the server echoed.
func (c *Client) explain(r resolved, err error) error {
	return redact(c.explainRaw(r, err), c.cfg.APIKey)
}

func (c *Client) explainRaw(r resolved, err error) error {
	code, _ := statusOf(err)
	switch {
	case errors.Is(err, syscall.ECONNREFUSED) || isDNSError(err) || isTLSError(err):
		return fmt.Errorf("%w: %s (check %s): %w", ErrUnreachable, c.base, c.cfg.setting("base_url"), err)
	case code == 401 || code == 403:
		return fmt.Errorf("%w: %s answered %d (check %s): %w", ErrAuth, c.base, code, c.cfg.setting("api_key"), err)
	case code == 404:
		return fmt.Errorf("%w: %s answered 404 for model %q (check %s and %s): %w", ErrModelNotFound, c.base, r.model,
			c.cfg.setting(r.modelKey), c.cfg.setting("base_url"), err)
	case (code == 400 || code == 413) && contextTooLong(err):
		return fmt.Errorf("%w: model %q: %w", ErrContextLength, r.model, err)
	case code == 429:
		return fmt.Errorf("%w: model %q: %w", ErrRateLimited, r.model, err)
	}
	return fmt.Errorf("model %q at %s: %w", r.model, c.base, err)
}

// redactedError hides a secret in an error's text and keeps the chain for
// errors.Is/As.
type redactedError struct {
	err    error
	secret string
}

func (e *redactedError) Error() string {
	return strings.ReplaceAll(e.err.Error(), e.secret, "[redacted]")
}

func (e *redactedError) Unwrap() error { return e.err }

func redact(err error, secret string) error {
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
// long (OpenAI's code, vLLM's, Ollama's and DeepSeek's messages).
func contextTooLong(err error) bool {
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"context_length_exceeded", "maximum context length", "context length", "context window", "too many tokens", "prompt is too long"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
