package trydemo

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/gitea/giteatest"
)

// giteaPayloads are deliveries a real Gitea 1.26 sent (recorded in
// webhook/testdata/gitea, byte for byte: a test keeps them equal), where
// alice owned alice/hello and issuesmith was the bot's user; each delivery
// re-addresses them to the fake Gitea and the sample's repository, issue
// and person.
//
//go:embed payloads/gitea/*.json
var giteaPayloads embed.FS

// The recorded deliveries' server, repository and person.
var recordedOrigin = regexp.MustCompile(`^http://127\.0\.0\.1:[0-9]+`)

const (
	recordedRepo   = "alice/hello"
	recordedPerson = "alice"
)

// example reads a recorded delivery, moves every address in it to the fake
// Gitea and the sample's repository, sets the repository, the sender and
// the issue (number, title, body, author, labels as the fake has them now)
// and applies set.
func (g *giteaDemo) example(file string, set func(p map[string]any)) []byte {
	raw, err := giteaPayloads.ReadFile("payloads/gitea/" + file)
	if err != nil {
		panic(err) // embedded: cannot happen
	}
	var p map[string]any
	if err := json.Unmarshal(raw, &p); err != nil {
		panic(fmt.Sprintf("payloads/gitea/%s: %v", file, err))
	}
	readdress(p, g.fg.URL())
	repo := obj(p, "repository")
	repo["name"], repo["full_name"], repo["clone_url"] = name, owner+"/"+name, g.cloneURL
	g.user(obj(repo, "owner"), owner)
	g.user(obj(p, "sender"), person)
	if is, ok := p["issue"].(map[string]any); ok {
		is["number"], is["title"], is["body"] = g.issue, issueTitle, issueBody
		g.user(obj(is, "user"), person)
		r := obj(is, "repository")
		r["name"], r["full_name"], r["owner"] = name, owner+"/"+name, owner
		is["labels"] = g.labels()
	}
	set(p)
	out, err := json.Marshal(p)
	if err != nil {
		panic(err)
	}
	return out
}

// readdress rewrites every string of v that names the recorded server or
// repository: the fake's URL for the server, the sample for alice/hello.
func readdress(v any, base string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = readdress(e, base)
		}
	case []any:
		for i, e := range x {
			x[i] = readdress(e, base)
		}
	case string:
		if recordedOrigin.MatchString(x) {
			x = strings.ReplaceAll(recordedOrigin.ReplaceAllString(x, base), "/"+recordedRepo+"/", "/"+owner+"/"+name+"/")
		}
		return x
	}
	return v
}

// user sets a recorded user object's names to login's.
func (g *giteaDemo) user(u map[string]any, login string) {
	u["login"], u["username"], u["email"] = login, login, login+"@example.com"
	u["html_url"] = g.fg.URL() + "/" + login
}

// labels are the issue's labels as the fake has them, each in the shape
// of the recorded label object (issue_comment.edited's, the trigger
// label of the recording).
func (g *giteaDemo) labels() []any {
	raw, _ := giteaPayloads.ReadFile("payloads/gitea/issue_comment.edited.json")
	var rec struct {
		Issue struct {
			Labels []map[string]any `json:"labels"`
		} `json:"issue"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil || len(rec.Issue.Labels) == 0 {
		panic("payloads/gitea/issue_comment.edited.json: no label to copy")
	}
	out := []any{}
	is, _ := g.fg.Issue(owner, name, g.issue)
	for i, l := range is.Labels {
		obj := map[string]any{}
		for k, v := range rec.Issue.Labels[0] {
			obj[k] = v
		}
		obj["id"], obj["name"] = i+1, l
		obj["url"] = fmt.Sprintf("%s/api/v1/repos/%s/%s/labels/%d", g.fg.URL(), owner, name, i+1)
		out = append(out, obj)
	}
	return out
}

// labeled is Gitea's issue_label delivery for the person's label.
func (g *giteaDemo) labeled() []byte {
	return g.example("issue_label.label_updated.json", func(p map[string]any) { p["number"] = g.issue })
}

// edited is Gitea's issue_comment delivery for the person's edit of the
// bot's comment id: its body now, and was before.
func (g *giteaDemo) edited(id int64, body, was string) []byte {
	return g.example("issue_comment.edited.json", func(p map[string]any) {
		c := obj(p, "comment")
		c["id"], c["body"] = id, body
		c["html_url"] = fmt.Sprintf("%s/%s/%s/issues/%d#issuecomment-%d", g.fg.URL(), owner, name, g.issue, id)
		c["issue_url"] = fmt.Sprintf("%s/%s/%s/issues/%d", g.fg.URL(), owner, name, g.issue)
		g.user(obj(c, "user"), giteaBot)
		obj(obj(p, "changes"), "body")["from"] = was
	})
}

// status is Gitea's status delivery for a commit status on sha.
func (g *giteaDemo) status(sha, state, description string) []byte {
	return g.example("status.json", func(p map[string]any) {
		p["sha"], p["state"], p["context"], p["description"] = sha, state, ciCheck, description
		p["target_url"] = ""
		c := obj(p, "commit")
		c["id"] = sha
		c["url"] = fmt.Sprintf("%s/%s/%s/commit/%s", g.fg.URL(), owner, name, sha)
	})
}

// result is the page's material, read from the fake Gitea's state (in the
// page's types): the issue and its conversation, the pull request and its
// conversation, and the diff from the git server.
func (g *giteaDemo) result(ctx context.Context, pr giteatest.Pull) (*Result, error) {
	diff, err := gitDiff(ctx, g.git.Dir(owner+"/"+name), pr.Base, pr.Head)
	if err != nil {
		return nil, err
	}
	is, _ := g.fg.Issue(owner, name, g.issue)
	return &Result{
		Forge: "Gitea", Repo: owner + "/" + name, BotLogin: giteaBot,
		Issue: ghtest.Issue{Number: is.Number, Title: is.Title, Body: is.Body, User: is.User, State: is.State,
			Labels: is.Labels, Reactions: g.fg.Reactions(owner, name, g.issue)},
		Comments: comments(g.fg.Comments(owner, name, g.issue)),
		PR: ghtest.PullRequest{Number: pr.Number, Title: pr.Title, Body: pr.Body, User: pr.User, Head: pr.Head,
			Base: pr.Base, Draft: pr.Draft, State: pr.State, Merged: pr.Merged, Reviewers: pr.RequestedReviews},
		PRComments: comments(g.fg.Comments(owner, name, pr.Number)), Diff: diff,
		Exchanges: len(g.model.Requests()), issued: []string{g.token},
	}, nil
}

// comments are Gitea's comments as the page shows them.
func comments(cs []giteatest.Comment) []ghtest.Comment {
	var out []ghtest.Comment
	for _, c := range cs {
		out = append(out, ghtest.Comment{ID: c.ID, User: c.User, Body: c.Body, Edits: c.Edits})
	}
	return out
}
