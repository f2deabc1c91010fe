package trydemo

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/internal/procenv"
)

// payloads are GitHub's published webhook examples (npm
// @octokit/webhooks-examples), byte for byte the copies in
// webhook/testdata (a test keeps them equal); each delivery patches in the
// sample's repository, issue, people and installation.
//
//go:embed payloads/*.json
var payloads embed.FS

// example reads a payload and applies set to it.
func (d *demo) example(file string, set func(p map[string]any)) []byte {
	raw, err := payloads.ReadFile("payloads/" + file)
	if err != nil {
		panic(err) // embedded: cannot happen
	}
	var p map[string]any
	if err := json.Unmarshal(raw, &p); err != nil {
		panic(fmt.Sprintf("payloads/%s: %v", file, err))
	}
	repo := obj(p, "repository")
	repo["name"], repo["full_name"] = name, owner+"/"+name
	obj(repo, "owner")["login"] = owner
	obj(p, "sender")["login"] = person
	p["installation"] = map[string]any{"id": d.gh.Installation(), "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ=="}
	set(p)
	out, err := json.Marshal(p)
	if err != nil {
		panic(err)
	}
	return out
}

func obj(p map[string]any, key string) map[string]any { return p[key].(map[string]any) }

// labeled is GitHub's issues.labeled delivery for the person's label.
func (d *demo) labeled() []byte {
	return d.example("issues.labeled.json", func(p map[string]any) {
		is := obj(p, "issue")
		is["number"], is["title"], is["body"] = d.issue, issueTitle, issueBody
		obj(is, "user")["login"] = person
		obj(p, "label")["name"] = trigger
	})
}

// commented is GitHub's issue_comment.created delivery for the person's
// comment id with body.
func (d *demo) commented(id int64, body string) []byte {
	return d.example("issue_comment.created.json", func(p map[string]any) {
		is := obj(p, "issue")
		is["number"], is["title"] = d.issue, issueTitle
		c := obj(p, "comment")
		c["id"], c["body"] = id, body
		obj(c, "user")["login"] = person
	})
}

// result is the page's material: the issue and its conversation as the
// fake GitHub holds them, the pull request, and its diff read from the
// git server with git itself.
func (d *demo) result(ctx context.Context, pr ghtest.PullRequest) (*Result, error) {
	is, _ := d.gh.Issue(owner, name, d.issue)
	diff, err := gitDiff(ctx, d.git.Dir(owner+"/"+name), pr.Base, pr.Head)
	if err != nil {
		return nil, err
	}
	return &Result{
		Forge: "GitHub", Repo: owner + "/" + name, BotLogin: d.gh.BotLogin(), Issue: is,
		Comments: d.gh.Comments(owner, name, d.issue), PR: pr, Diff: diff,
		PRComments: d.gh.Comments(owner, name, pr.Number),
		Exchanges:  len(d.model.Requests()), issued: d.gh.IssuedTokens(),
	}, nil
}

// gitDiff is git diff base...head in the git server's repository dir, read
// with git itself; an empty one is errNoDiff.
func gitDiff(ctx context.Context, dir, base, head string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "diff", "--no-color", "--no-ext-diff", base+"..."+head)
	cmd.Env = procenv.Scrubbed()
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git diff %s...%s: %w", base, head, err)
	}
	if strings.TrimSpace(string(out)) == "" {
		return "", errNoDiff
	}
	return string(out), nil
}
