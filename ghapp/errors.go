package ghapp

import (
	"errors"
	"net/http"

	"github.com/google/go-github/v60/github"
)

// ErrNotFound is returned (wrapped) when the thing asked for does not exist:
// no comment with the marker, no pull request for the branch, no file at the
// path, or a 404 from GitHub.
var ErrNotFound = errors.New("not found")

// ErrInstallationGone is returned (wrapped) when GitHub refuses an
// installation token with 404: the App was uninstalled there, or the id was
// never one of its installations. Nothing done as that installation can
// succeed until it is installed again. The error also answers
// InstallationGone() true, so packages that must not import ghapp (the
// webhook handler) can recognise it.
var ErrInstallationGone = errors.New("GitHub does not know this installation (the App was uninstalled?)")

// goneError is ErrInstallationGone with the token request's error.
type goneError struct{ err error }

func (e goneError) Error() string          { return ErrInstallationGone.Error() + ": " + e.err.Error() }
func (e goneError) Unwrap() []error        { return []error{ErrInstallationGone, e.err} }
func (e goneError) InstallationGone() bool { return true }

// isStatus reports whether err is a go-github error for an HTTP answer with
// the given status code.
func isStatus(err error, code int) bool {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode == code
	}
	return false
}

// notFound maps a GitHub 404 to ErrNotFound and leaves other errors alone.
func notFound(err error) error {
	if isStatus(err, http.StatusNotFound) {
		return errors.Join(ErrNotFound, err)
	}
	return err
}

// isNotFound reports whether err is (or wraps) ErrNotFound.
func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
