package gitea

import (
	"errors"
	"fmt"
	"net/http"
)

// Sentinels an *Error matches with errors.Is.
var (
	// ErrNotFound is Gitea's 404: no such repository, issue, comment,
	// pull request, file or job (or one the token may not see).
	ErrNotFound = errors.New("gitea: not found")
	// ErrForbidden is Gitea's 401 or 403: a bad token, a token missing a
	// scope ("token does not have at least one of required scope(s)…"),
	// or a user without the permission the call needs.
	ErrForbidden = errors.New("gitea: forbidden")
)

// Error is an answer Gitea refused a request with. Message is Gitea's
// {"message": …}, clipped (or the body's start when it sent no JSON).
type Error struct {
	Method, Path string
	Status       int
	Message      string
}

func (e *Error) Error() string {
	s := fmt.Sprintf("gitea %s %s: %d %s", e.Method, e.Path, e.Status, http.StatusText(e.Status))
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Is matches ErrNotFound for 404 and ErrForbidden for 401 and 403.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.Status == http.StatusNotFound
	case ErrForbidden:
		return e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden
	}
	return false
}
