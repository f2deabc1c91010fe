package ghapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// maxCheckRuns bounds how many check runs of one commit are read (ten
// pages): more is a monorepo's matrix, and the first failures are enough.
const maxCheckRuns = 1000

// CheckRuns returns the latest check run of each name on ref (a commit SHA
// or a branch), every App's, across pages.
func (c *Client) CheckRuns(ctx context.Context, owner, repo, ref string) ([]*github.CheckRun, error) {
	opts := &github.ListCheckRunsOptions{Filter: github.String("latest"), ListOptions: github.ListOptions{PerPage: 100}}
	var out []*github.CheckRun
	for len(out) < maxCheckRuns {
		res, resp, err := c.gh.Checks.ListCheckRunsForRef(ctx, owner, repo, ref, opts)
		if err != nil {
			return nil, fmt.Errorf("list check runs of %s in %s/%s: %w", short(ref), owner, repo, notFound(err))
		}
		out = append(out, res.CheckRuns...)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return out, nil
}

// CheckRunAnnotations returns a check run's annotations (at most 50 are
// read: GitHub keeps at most 50 per update, and the first ones matter).
func (c *Client) CheckRunAnnotations(ctx context.Context, owner, repo string, id int64) ([]*github.CheckRunAnnotation, error) {
	anns, _, err := c.gh.Checks.ListCheckRunAnnotations(ctx, owner, repo, id, &github.ListOptions{PerPage: 50})
	if err != nil {
		return nil, fmt.Errorf("list annotations of check run %d in %s/%s: %w", id, owner, repo, notFound(err))
	}
	return anns, nil
}

// ErrNoAccess is returned (wrapped) when the installation lacks a
// permission the call needs (an installation that has not accepted a new
// permission yet): the caller goes on without what it asked.
var ErrNoAccess = errors.New("the App's installation lacks the permission")

// MaxJobLog is the most of a job log JobLog keeps: its end, where a failed
// job's errors are.
const MaxJobLog = 4 << 20

// logClient downloads job logs from the storage host GitHub redirects to.
// It is not the installation's client: the token must never go there.
var logClient = &http.Client{Timeout: 2 * time.Minute}

// JobLog downloads the log of GitHub Actions job jobID: GitHub answers with
// a redirect to a short-lived storage URL, fetched without credentials.
// A log over MaxJobLog keeps its last MaxJobLog bytes. Without the
// actions:read permission it returns ErrNoAccess.
func (c *Client) JobLog(ctx context.Context, owner, repo string, jobID int64) (string, error) {
	u, resp, err := c.gh.Actions.GetWorkflowJobLogs(ctx, owner, repo, jobID, 0)
	if err != nil {
		if resp != nil && (resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusNotFound) {
			return "", fmt.Errorf("log of job %d in %s/%s: %w (actions: read)", jobID, owner, repo, ErrNoAccess)
		}
		return "", fmt.Errorf("log of job %d in %s/%s: %w", jobID, owner, repo, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	got, err := logClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("download log of job %d: %w", jobID, withoutSignedURL(err))
	}
	defer got.Body.Close()
	if got.StatusCode != http.StatusOK {
		return "", fmt.Errorf("download log of job %d: %s", jobID, got.Status)
	}
	return readTail(got.Body, MaxJobLog)
}

// readTail reads r to its end and keeps the last n bytes.
func readTail(r io.Reader, n int) (string, error) {
	buf := make([]byte, 0, min(n, 1<<20))
	chunk := make([]byte, 64<<10)
	for {
		k, err := r.Read(chunk)
		buf = append(buf, chunk[:k]...)
		if len(buf) > 2*n {
			buf = append(buf[:0], buf[len(buf)-n:]...)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("read job log: %w", err)
		}
	}
	if len(buf) > n {
		buf = buf[len(buf)-n:]
	}
	return string(buf), nil
}

// withoutSignedURL drops the signed storage URL from a transport error
// (the error's shape, not its text: internal/redact owns the text rules).
func withoutSignedURL(err error) error {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) && strings.Contains(err.Error(), "sig=") {
		return ue.Unwrap()
	}
	return err
}

// MarkReady marks the draft pull request number ready for review: GitHub
// does this only through GraphQL (markPullRequestReadyForReview).
func (c *Client) MarkReady(ctx context.Context, owner, repo string, number int) error {
	pr, err := c.GetPR(ctx, owner, repo, number)
	if err != nil {
		return err
	}
	if !pr.GetDraft() {
		return nil
	}
	q := map[string]any{
		"query":     `mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft } } }`,
		"variables": map[string]any{"id": pr.GetNodeID()},
	}
	req, err := c.gh.NewRequest(http.MethodPost, graphQLURL(c.gh), q)
	if err != nil {
		return err
	}
	var out struct {
		Errors []struct{ Message string } `json:"errors"`
	}
	if _, err := c.gh.Do(ctx, req, &out); err != nil {
		return fmt.Errorf("mark %s/%s#%d ready for review: %w", owner, repo, number, err)
	}
	if len(out.Errors) > 0 {
		return fmt.Errorf("mark %s/%s#%d ready for review: %s", owner, repo, number, out.Errors[0].Message)
	}
	return nil
}

// graphQLURL is the GraphQL endpoint beside the REST root: /graphql on
// github.com, /api/graphql on GitHub Enterprise Server (REST at /api/v3/).
func graphQLURL(gh *github.Client) string {
	u := *gh.BaseURL
	if p, ok := strings.CutSuffix(u.Path, "/api/v3/"); ok {
		u.Path = p + "/api/graphql"
		return u.String()
	}
	return u.JoinPath("graphql").String()
}

func short(ref string) string {
	if len(ref) == 40 {
		return ref[:12]
	}
	return ref
}
