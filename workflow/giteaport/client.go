package giteaport

import (
	"context"
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/gitea"
	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/workflow"
)

// Client is workflow.GitHub over a Gitea server's client, acting as the
// user Bot (the token's owner).
type Client struct {
	c   *gitea.Client
	bot string
}

var _ workflow.GitHub = Client{}

// New adapts c, whose token belongs to the user bot.
func New(c *gitea.Client, bot string) Client { return Client{c: c, bot: bot} }

// Installations is workflow.Installations for one Gitea server: id is the
// server's installation id in the store; any other id is not this forge's.
func Installations(c Client, id int64) workflow.Installations {
	return workflow.InstallationsFunc(func(_ context.Context, got int64) (workflow.GitHub, error) {
		if got != id {
			return nil, fmt.Errorf("installation %d is not the Gitea server's (%d)", got, id)
		}
		return c, nil
	})
}

// byBot reports whether u is the bot's Gitea user: only its comments are
// the bot's (a person cannot plant a marker).
func (g Client) byBot(u gitea.User) bool { return strings.EqualFold(u.Login, g.bot) }

func (g Client) UpsertComment(ctx context.Context, owner, repo string, number int, marker ghtext.Marker, body string) (*workflow.Comment, error) {
	found, m, err := g.find(ctx, owner, repo, number, marker)
	if err != nil {
		return nil, Err(err)
	}
	if found == nil {
		marker.Version = max(marker.Version, 1)
		c, err := g.c.CreateComment(ctx, owner, repo, number, ghtext.WithMarker(body, marker))
		if err != nil {
			return nil, Err(err)
		}
		return comment(c), nil
	}
	if marker.Run == "" {
		marker.Run = m.Run
	}
	if marker.Version == 0 {
		marker.Version = m.Version + 1
	}
	if ghtext.StripMarker(found.Body) == ghtext.StripMarker(body) {
		return comment(found), nil
	}
	c, err := g.c.EditComment(ctx, owner, repo, found.ID, ghtext.WithMarker(body, marker))
	if err != nil {
		return nil, Err(err)
	}
	return comment(c), nil
}

func (g Client) GetComment(ctx context.Context, owner, repo string, id int64) (*workflow.Comment, error) {
	c, err := g.c.Comment(ctx, owner, repo, id)
	if err != nil {
		return nil, Err(err)
	}
	return comment(c), nil
}

func (g Client) FindComment(ctx context.Context, owner, repo string, number int, want ghtext.Marker) (*workflow.Comment, ghtext.Marker, error) {
	c, m, err := g.find(ctx, owner, repo, number, want)
	switch {
	case err != nil:
		return nil, m, Err(err)
	case c == nil:
		return nil, m, fmt.Errorf("comment %s on %s/%s#%d: %w", want.Kind, owner, repo, number, workflow.ErrNotFound)
	}
	return comment(c), m, nil
}

// find is the bot's oldest comment on number with a marker matching want,
// or nil.
func (g Client) find(ctx context.Context, owner, repo string, number int, want ghtext.Marker) (*gitea.Comment, ghtext.Marker, error) {
	cs, err := g.c.IssueComments(ctx, owner, repo, number)
	if err != nil {
		return nil, ghtext.Marker{}, g.gone(ctx, owner, repo, number, err)
	}
	for i := range cs {
		if !g.byBot(cs[i].User) {
			continue
		}
		if m, ok := ghtext.ParseMarker(cs[i].Body); ok && want.Matches(m) {
			return &cs[i], m, nil
		}
	}
	return nil, ghtext.Marker{}, nil
}

// FindPR is the pull request from branch head: the open one if any, else
// the newest. A fork's branch ("owner:branch") is not served on Gitea.
func (g Client) FindPR(ctx context.Context, owner, repo, head string) (*workflow.PullRequest, error) {
	if strings.Contains(head, ":") {
		return nil, fmt.Errorf("pull request from %s: pushing to forks is not served on Gitea: %w", head, workflow.ErrNotFound)
	}
	prs, err := g.c.PullRequests(ctx, owner, repo, "all")
	if err != nil {
		return nil, Err(err)
	}
	var best *gitea.PullRequest
	for i := range prs {
		pr := &prs[i]
		if pr.Head.Ref != head {
			continue
		}
		if best == nil || pr.State == "open" && best.State != "open" || pr.State == best.State && pr.Number > best.Number {
			best = pr
		}
	}
	if best == nil {
		return nil, fmt.Errorf("pull request from %s in %s/%s: %w", head, owner, repo, workflow.ErrNotFound)
	}
	return pullRequest(best), nil
}

// CreatePR opens the pull request; a draft is Gitea's "WIP: " prefix.
func (g Client) CreatePR(ctx context.Context, owner, repo string, p workflow.NewPR) (*workflow.PullRequest, error) {
	title := p.Title
	if p.Draft && !isDraft(title) {
		title = wipPrefix + title
	}
	pr, err := g.c.CreatePullRequest(ctx, owner, repo, gitea.NewPullRequest{Title: title, Head: p.Head, Base: p.Base, Body: p.Body})
	if err != nil {
		return nil, Err(err)
	}
	return pullRequest(pr), nil
}

func (g Client) RequestReviewers(ctx context.Context, owner, repo string, number int, users ...string) error {
	return Err(g.c.RequestReviewers(ctx, owner, repo, number, users...))
}

func (g Client) Repository(ctx context.Context, owner, repo string) (*workflow.Repository, error) {
	r, err := g.c.Repository(ctx, owner, repo)
	if err != nil {
		return nil, Err(err)
	}
	return &workflow.Repository{DefaultBranch: r.DefaultBranch, CloneURL: r.CloneURL}, nil
}

func (g Client) FileContent(ctx context.Context, owner, repo, path, ref string) ([]byte, error) {
	b, err := g.c.RawFile(ctx, owner, repo, path, ref)
	return b, Err(err)
}

func (g Client) GetIssue(ctx context.Context, owner, repo string, number int) (*workflow.Issue, error) {
	is, err := g.c.Issue(ctx, owner, repo, number)
	if err != nil {
		return nil, Err(err)
	}
	out := &workflow.Issue{Title: is.Title, Body: is.Body}
	for _, l := range is.Labels {
		out.Labels = append(out.Labels, l.Name)
	}
	return out, nil
}

func (g Client) ReactIssue(ctx context.Context, owner, repo string, number int, content string) error {
	return Err(g.c.React(ctx, owner, repo, number, content))
}

// RemoveLabel removes the label named label (Gitea removes by id).
func (g Client) RemoveLabel(ctx context.Context, owner, repo string, number int, label string) error {
	ls, err := g.c.IssueLabels(ctx, owner, repo, number)
	if err != nil {
		return Err(err)
	}
	for _, l := range ls {
		if strings.EqualFold(l.Name, label) {
			return Err(g.c.RemoveLabel(ctx, owner, repo, number, l.ID))
		}
	}
	return fmt.Errorf("label %q on %s/%s#%d: %w", label, owner, repo, number, workflow.ErrNotFound)
}

// CanWrite asks Gitea for user's permission on the repository (owner,
// admin and write may write). Gitea answers only a repository
// administrator: a refusal says so.
func (g Client) CanWrite(ctx context.Context, owner, repo, user string) (bool, error) {
	p, err := g.c.Permission(ctx, owner, repo, user)
	switch {
	case err == nil:
		return p == "owner" || p == "admin" || p == "write", nil
	case errorsIsNotFound(err):
		return false, nil
	default:
		return false, Err(fmt.Errorf("read %s's permission on %s/%s (Gitea answers only a repository administrator: "+
			"make the bot's user one): %w", user, owner, repo, err))
	}
}
