package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/internal/ghtext"
)

// kindCI marks the pull request's one CI comment, edited in place.
const kindCI = "ci"

// commitKey is the checkpoint that notes sha as a commit the bot made; its
// result names the request it was made for.
func commitKey(sha string) string { return "commit." + sha }

// noteCommit records sha as the bot's before it is pushed: a crash after
// the push still leaves the commit known as the bot's (not a person's), and
// which request made it.
func (s *runJob) noteCommit(ctx context.Context, sha, request string) error {
	_, err := s.e.d.Store.Checkpoint(ctx, s.run.ID, commitKey(sha), request)
	return err
}

// botCommit reports whether sha is a commit the bot pushed: noted, or
// recorded by a push or revise checkpoint of a run made before notes.
func (s *runJob) botCommit(ctx context.Context, sha string) (bool, error) {
	st := s.e.d.Store
	if _, ok, err := st.StepResult(ctx, s.run.ID, commitKey(sha)); err != nil || ok {
		return ok, err
	}
	steps, err := st.Steps(ctx, s.run.ID, "")
	if err != nil {
		return false, err
	}
	for _, step := range steps {
		if step.Name != stepPushed && !strings.HasSuffix(step.Name, ".pushed") {
			continue
		}
		var rec struct {
			SHA string `json:"sha"`
		}
		if json.Unmarshal([]byte(step.Result), &rec) == nil && rec.SHA == sha {
			return true, nil
		}
	}
	return false, nil
}

// ciComment writes the pull request's CI comment from the records.
func (s *runJob) ciComment(ctx context.Context, recs []ciRecord) error {
	o := s.run
	body := fitBody(renderCI(recs, s.cfg.CI.FixRounds))
	if _, err := s.gh.UpsertComment(ctx, o.Owner, o.Repo, o.PRNumber, ghtext.Marker{Kind: kindCI, Run: runID(o)}, body); err != nil {
		return fmt.Errorf("update the CI comment: %w", err)
	}
	return nil
}
