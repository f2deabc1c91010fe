package giteaport

import (
	"errors"
	"time"

	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/gitea"
	"github.com/issuesmith/issuesmith/workflow"
)

// Err is err in the workflow's terms: its text and chain kept, Gitea's 404
// also a workflow.ErrNotFound, 401/403 a workflow.ErrNoAccess, and a rate
// limit (a 429 the transport did not wait out) a *workflow.RateLimitError.
func Err(err error) error {
	if err == nil {
		return nil
	}
	err = workflow.Translate(err, workflow.Translation{From: gitea.ErrNotFound, To: workflow.ErrNotFound},
		workflow.Translation{From: gitea.ErrForbidden, To: workflow.ErrNoAccess})
	var rl *workflow.RateLimitError
	if errors.As(err, &rl) {
		return err
	}
	if limit, ok := ghapp.RateLimitOf(err, time.Now()); ok {
		err = &workflow.RateLimitError{Secondary: limit.Secondary, Reset: limit.Until, Err: err}
	}
	return err
}
