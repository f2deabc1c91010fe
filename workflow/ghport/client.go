package ghport

import (
	"context"

	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/workflow"
)

// Client is workflow.GitHub over one installation's *ghapp.Client.
type Client struct{ c *ghapp.Client }

var _ workflow.GitHub = Client{}

// New adapts c to the workflow.
func New(c *ghapp.Client) Client { return Client{c: c} }

// Installations is workflow.Installations over app: each installation's
// client, adapted.
func Installations(app *ghapp.App) workflow.Installations {
	return workflow.InstallationsFunc(func(ctx context.Context, id int64) (workflow.GitHub, error) {
		c, err := app.Client(ctx, id)
		if err != nil {
			return nil, Err(err)
		}
		return New(c), nil
	})
}

// reserve passes the workflow's mark on to ghapp: a call the workflow
// made with workflow.Reserved may use the requests the installation's
// client keeps in reserve (ghapp.WithReserve).
func reserve(ctx context.Context) context.Context {
	if workflow.Reserved(ctx) {
		return ghapp.WithReserve(ctx)
	}
	return ctx
}

// The methods below are workflow.GitHub's roles (ports.go), in its order:
// each is the ghapp.Client call of that name with the workflow's reserve
// mark passed on (reserve), its values converted (convert.go) and its
// error through Err.

func (g Client) UpsertComment(ctx context.Context, owner, repo string, number int, marker ghtext.Marker, body string) (*workflow.Comment, error) {
	ctx = reserve(ctx)
	c, err := g.c.UpsertComment(ctx, owner, repo, number, marker, body)
	if err != nil {
		return nil, Err(err)
	}
	return comment(c), nil
}

func (g Client) GetComment(ctx context.Context, owner, repo string, id int64) (*workflow.Comment, error) {
	ctx = reserve(ctx)
	c, err := g.c.GetComment(ctx, owner, repo, id)
	if err != nil {
		return nil, Err(err)
	}
	return comment(c), nil
}

func (g Client) FindComment(ctx context.Context, owner, repo string, number int, want ghtext.Marker) (*workflow.Comment, ghtext.Marker, error) {
	ctx = reserve(ctx)
	c, m, err := g.c.FindComment(ctx, owner, repo, number, want)
	if err != nil {
		return nil, m, Err(err)
	}
	return comment(c), m, nil
}

func (g Client) FindPR(ctx context.Context, owner, repo, head string) (*workflow.PullRequest, error) {
	ctx = reserve(ctx)
	p, err := g.c.FindPR(ctx, owner, repo, head)
	if err != nil {
		return nil, Err(err)
	}
	return pullRequest(p), nil
}

func (g Client) CreatePR(ctx context.Context, owner, repo string, p workflow.NewPR) (*workflow.PullRequest, error) {
	ctx = reserve(ctx)
	pr, err := g.c.CreatePR(ctx, owner, repo, newPR(p))
	if err != nil {
		return nil, Err(err)
	}
	return pullRequest(pr), nil
}

func (g Client) RequestReviewers(ctx context.Context, owner, repo string, number int, users ...string) error {
	ctx = reserve(ctx)
	return Err(g.c.RequestReviewers(ctx, owner, repo, number, users...))
}

func (g Client) GetReviewComment(ctx context.Context, owner, repo string, id int64) (*workflow.DiffComment, error) {
	ctx = reserve(ctx)
	c, err := g.c.GetReviewComment(ctx, owner, repo, id)
	if err != nil {
		return nil, Err(err)
	}
	return new(diffComment(c)), nil
}

func (g Client) ReviewThread(ctx context.Context, owner, repo string, number int, id int64) ([]workflow.DiffComment, error) {
	ctx = reserve(ctx)
	cs, err := g.c.ReviewThread(ctx, owner, repo, number, id)
	var out []workflow.DiffComment
	for _, c := range cs {
		out = append(out, diffComment(c))
	}
	return out, Err(err)
}

func (g Client) ReplyToReviewComment(ctx context.Context, owner, repo string, number int, id int64, body string) (*workflow.DiffComment, error) {
	ctx = reserve(ctx)
	c, err := g.c.ReplyToReviewComment(ctx, owner, repo, number, id, body)
	if err != nil {
		return nil, Err(err)
	}
	return new(diffComment(c)), nil
}

func (g Client) Repository(ctx context.Context, owner, repo string) (*workflow.Repository, error) {
	ctx = reserve(ctx)
	r, err := g.c.Repository(ctx, owner, repo)
	if err != nil {
		return nil, Err(err)
	}
	return repository(r), nil
}

func (g Client) FileContent(ctx context.Context, owner, repo, path, ref string) ([]byte, error) {
	ctx = reserve(ctx)
	b, err := g.c.FileContent(ctx, owner, repo, path, ref)
	return b, Err(err)
}

func (g Client) GetIssue(ctx context.Context, owner, repo string, number int) (*workflow.Issue, error) {
	ctx = reserve(ctx)
	is, err := g.c.GetIssue(ctx, owner, repo, number)
	if err != nil {
		return nil, Err(err)
	}
	return issue(is), nil
}

func (g Client) ReactIssue(ctx context.Context, owner, repo string, number int, content string) error {
	ctx = reserve(ctx)
	return Err(g.c.ReactIssue(ctx, owner, repo, number, content))
}

func (g Client) RemoveLabel(ctx context.Context, owner, repo string, number int, label string) error {
	ctx = reserve(ctx)
	return Err(g.c.RemoveLabel(ctx, owner, repo, number, label))
}

func (g Client) GetPR(ctx context.Context, owner, repo string, number int) (*workflow.PullRequest, error) {
	ctx = reserve(ctx)
	p, err := g.c.GetPR(ctx, owner, repo, number)
	if err != nil {
		return nil, Err(err)
	}
	return pullRequest(p), nil
}

func (g Client) CheckRuns(ctx context.Context, owner, repo, ref string) ([]workflow.CheckRun, error) {
	ctx = reserve(ctx)
	rs, err := g.c.CheckRuns(ctx, owner, repo, ref)
	if err != nil {
		return nil, Err(err)
	}
	out := make([]workflow.CheckRun, 0, len(rs))
	for _, r := range rs {
		out = append(out, checkRun(r))
	}
	return out, nil
}

func (g Client) CheckRunAnnotations(ctx context.Context, owner, repo string, id int64) ([]workflow.Annotation, error) {
	ctx = reserve(ctx)
	as, err := g.c.CheckRunAnnotations(ctx, owner, repo, id)
	var out []workflow.Annotation
	for _, a := range as {
		out = append(out, annotation(a))
	}
	return out, Err(err)
}

func (g Client) JobLog(ctx context.Context, owner, repo string, jobID int64) (string, error) {
	ctx = reserve(ctx)
	log, err := g.c.JobLog(ctx, owner, repo, jobID)
	return log, Err(err)
}

func (g Client) MarkReady(ctx context.Context, owner, repo string, number int) error {
	ctx = reserve(ctx)
	return Err(g.c.MarkReady(ctx, owner, repo, number))
}

func (g Client) CanWrite(ctx context.Context, owner, repo, user string) (bool, error) {
	ctx = reserve(ctx)
	ok, err := g.c.CanWrite(ctx, owner, repo, user)
	return ok, Err(err)
}
