package giteapoll

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/issuesmith/issuesmith/gitea"
	"github.com/issuesmith/issuesmith/webhook"
	"github.com/issuesmith/issuesmith/workflow"
)

// Options configure a pass.
type Options struct {
	// Since is how far back a pass looks.
	Since time.Time
	// Bot is the login of the bot's Gitea user; InstallationID the
	// server's id in the store (server.GiteaInstallation).
	Bot            string
	InstallationID int64
	// Now stamps the events (time.Now when nil).
	Now func() time.Time
}

// Report is what a pass did.
type Report struct {
	Repos, Issues, Comments, PullRequests int
	// Accepted requests were new; Duplicates had been handled already.
	Accepted, Duplicates int
}

// Pass polls the server once; it goes on past a repository that fails and
// returns the failures joined.
func Pass(ctx context.Context, c *gitea.Client, intake webhook.Intake, o Options) (Report, error) {
	var rep Report
	if o.Now == nil {
		o.Now = time.Now
	}
	repos, err := c.UserRepos(ctx)
	if err != nil {
		return rep, fmt.Errorf("list the bot's repositories: %w", err)
	}
	p := &pass{c: c, in: intake, o: o, rep: &rep}
	var errs []error
	for _, r := range repos {
		if r.Archived || r.Empty {
			continue
		}
		rep.Repos++
		if err := p.repo(ctx, r.Owner.Login, r.Name); err != nil {
			errs = append(errs, fmt.Errorf("%s/%s: %w", r.Owner.Login, r.Name, err))
		}
	}
	return rep, errors.Join(errs...)
}

type pass struct {
	c   *gitea.Client
	in  webhook.Intake
	o   Options
	rep *Report
}

func (p *pass) repo(ctx context.Context, owner, name string) error {
	issues, err := p.c.IssuesSince(ctx, owner, name, p.o.Since)
	if err != nil {
		return err
	}
	for _, is := range issues {
		p.rep.Issues++
		ev := p.event(workflow.LabelsSet, owner, name, is.Number, is.User.Login)
		for _, l := range is.Labels {
			ev.Labels = append(ev.Labels, l.Name)
		}
		if err := p.accept(ctx, ev, labelsKey(owner, name, is.Number, is.Updated, ev.Labels)); err != nil {
			return err
		}
	}
	comments, err := p.c.CommentsSince(ctx, owner, name, p.o.Since)
	if err != nil {
		return err
	}
	for _, cm := range comments {
		p.rep.Comments++
		if err := p.comment(ctx, owner, name, cm); err != nil {
			return err
		}
	}
	return p.statuses(ctx, owner, name)
}

// comment hands on a person's command, or a person's mention of the bot
// on the bot's pull request (whose author the pass asks Gitea).
func (p *pass) comment(ctx context.Context, owner, name string, cm gitea.Comment) error {
	if strings.EqualFold(cm.User.Login, p.o.Bot) {
		return nil
	}
	isPR := cm.PullRequestURL != ""
	number, ok := trailingNumber(cm.IssueURL)
	if isPR {
		number, ok = trailingNumber(cm.PullRequestURL)
	}
	if !ok {
		return nil
	}
	ev := p.event("", owner, name, number, cm.User.Login)
	ev.IsPR, ev.CommentID, ev.Body, ev.CheckWrite = isPR, cm.ID, cm.Body, true
	switch cmd, args, isCmd := workflow.ParseCommand(cm.Body); {
	case isCmd:
		ev.Kind, ev.Command, ev.Args = workflow.CommandGiven, cmd, args
	case isPR && workflow.Mentions(cm.Body, p.o.Bot):
		pr, err := p.c.PullRequest(ctx, owner, name, number)
		if errors.Is(err, gitea.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if !strings.EqualFold(pr.User.Login, p.o.Bot) {
			return nil
		}
		ev.Kind = workflow.Mention
	default:
		return nil
	}
	return p.accept(ctx, ev, webhook.ObjectKey("gitea", "comment", cm.ID, cm.Updated))
}

// statuses hands on the ended commit status of each of the bot's open
// pull requests' heads.
func (p *pass) statuses(ctx context.Context, owner, name string) error {
	prs, err := p.c.PullRequests(ctx, owner, name, "open")
	if err != nil {
		return err
	}
	for _, pr := range prs {
		if !strings.EqualFold(pr.User.Login, p.o.Bot) || pr.Head.SHA == "" {
			continue
		}
		p.rep.PullRequests++
		st, err := p.c.CombinedStatus(ctx, owner, name, pr.Head.SHA)
		if err != nil {
			return err
		}
		if len(st.Statuses) == 0 || st.State == "pending" || st.State == "" {
			continue
		}
		ev := p.event(workflow.CIFinished, owner, name, 0, p.o.Bot)
		ev.SHA, ev.Action = pr.Head.SHA, st.State
		if err := p.accept(ctx, ev, fmt.Sprintf("obj:gitea:status:%s/%s@%s:%s", owner, name, pr.Head.SHA, st.State)); err != nil {
			return err
		}
	}
	return nil
}

func (p *pass) event(kind workflow.EventKind, owner, name string, number int, sender string) workflow.Event {
	return workflow.Event{Kind: kind, InstallationID: p.o.InstallationID, Owner: owner, Repo: name, Number: number,
		Sender: sender, Received: p.o.Now(), GitHubEvent: "gitea_poll"}
}

// accept hands ev on under key (and a delivery id made of it).
func (p *pass) accept(ctx context.Context, ev workflow.Event, key string) error {
	ev.Delivery = "gitea-poll:" + key
	dup, err := p.in.Accept(ctx, []string{key}, ev)
	switch {
	case err != nil:
		return fmt.Errorf("hand on %s: %w", key, err)
	case dup != "":
		p.rep.Duplicates++
	default:
		p.rep.Accepted++
	}
	return nil
}

// trailingNumber is the number at the end of an issue or pull request URL.
func trailingNumber(u string) (int, bool) {
	i := strings.LastIndex(u, "/")
	n, err := strconv.Atoi(u[i+1:])
	return n, err == nil && n > 0
}

// labelsKey keys an issue's labels as a pass saw them: the issue's update
// time (Gitea's, in whole seconds) and the labels themselves, so a change
// within the second of the last pass still makes a new key, and a label
// removed and added again later does too.
func labelsKey(owner, name string, number int, updated time.Time, labels []string) string {
	sorted := slices.Clone(labels)
	for i := range sorted {
		sorted[i] = strings.ToLower(sorted[i])
	}
	slices.Sort(sorted)
	sum := sha256.Sum256([]byte(strings.Join(sorted, "\n")))
	return fmt.Sprintf("obj:gitea:labels:%s/%s#%d:%d:%x", owner, name, number, updated.Unix(), sum[:8])
}
