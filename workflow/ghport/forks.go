package ghport

import (
	"context"

	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/workflow"
)

// Forks is workflow.Forks over *ghapp.Forks (push: fork).
type Forks struct{ F *ghapp.Forks }

var _ workflow.Forks = Forks{}

// Owner is the account that owns the forks.
func (f Forks) Owner() string { return f.F.Owner() }

// Fork finds or makes the fork of owner/repo.
func (f Forks) Fork(ctx context.Context, owner, repo string) (*workflow.Fork, error) {
	fk, err := f.F.Fork(ctx, owner, repo)
	if err != nil {
		return nil, Err(err)
	}
	return fork(fk), nil
}
