package webhook

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/gitea/giteaserver"
)

// TestRecordGiteaPayloads records the deliveries a real Gitea sends for
// what a person does around the bot, into testdata/gitea/<event type>.json
// (the fast tests' payloads: recordings, not hand-written JSON). Run with
// ISSUESMITH_GITEA_RECORD=1 and a Gitea binary (ISSUESMITH_GITEA_BIN).
//
// The bot's user "issuesmith" opens the pull request and writes the
// comment a person edits, as the bot would.
func TestRecordGiteaPayloads(t *testing.T) {
	if os.Getenv("ISSUESMITH_GITEA_RECORD") != "1" {
		t.Skip("a recording: ISSUESMITH_GITEA_RECORD=1")
	}
	var mu sync.Mutex
	got := map[string][]byte{}
	arrived := make(chan struct{}, 1)
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		kind := r.Header.Get("X-Gitea-Event-Type")
		var p struct {
			Action string `json:"action"`
		}
		_ = json.Unmarshal(b, &p)
		if p.Action != "" {
			kind += "." + p.Action
		}
		for i := 2; got[kind] != nil; i++ { // a second delivery of a kind: kind.2
			if got[fmt.Sprintf("%s.%d", kind, i)] == nil {
				kind = fmt.Sprintf("%s.%d", kind, i)
			}
		}
		got[kind] = b
		select { // wake the test: a delivery arrived
		case arrived <- struct{}{}:
		default:
		}
	}))
	defer sink.Close()
	srv := giteaserver.Start(t)
	alice := srv.User("alice", "write:repository,write:issue,write:user")
	bot := srv.User("issuesmith", "write:repository,write:issue,read:user")
	srv.Repo(alice, "alice", "hello", map[string]string{"greet.go": "package greet\n"})
	srv.API(alice, "PUT", "/repos/alice/hello/collaborators/issuesmith", map[string]any{"permission": "admin"}, nil)
	srv.Label(alice, "alice", "hello", "issuesmith")
	srv.API(alice, "POST", "/repos/alice/hello/hooks", map[string]any{"type": "gitea", "active": true,
		"events": []string{"issues", "pull_request", "status", "push"},
		"config": map[string]string{"url": sink.URL, "content_type": "json", "secret": "recording"}}, nil)
	n := srv.Issue(alice, "alice", "hello", "Greet people by name", "Hello() should take a name.")
	srv.API(alice, "PUT", fmt.Sprintf("/repos/alice/hello/issues/%d/labels", n), map[string]any{"labels": []string{"issuesmith"}}, nil)
	var c struct {
		ID int64 `json:"id"`
	}
	srv.API(bot, "POST", fmt.Sprintf("/repos/alice/hello/issues/%d/comments", n), map[string]any{"body": "- [ ] **Approve and implement**"}, &c)
	srv.API(alice, "PATCH", fmt.Sprintf("/repos/alice/hello/issues/comments/%d", c.ID), map[string]any{"body": "- [x] **Approve and implement**"}, nil)
	srv.API(alice, "POST", fmt.Sprintf("/repos/alice/hello/issues/%d/comments", n), map[string]any{"body": "/plan"}, nil)
	srv.API(bot, "POST", "/repos/alice/hello/contents", map[string]any{"branch": "main", "new_branch": fmt.Sprintf("issuesmith/issue-%d", n),
		"message": "Greet by name", "files": []map[string]any{{"operation": "update", "path": "greet.go",
			"content": "cGFja2FnZSBncmVldAoKZnVuYyBIZWxsbyhuYW1lIHN0cmluZykgc3RyaW5nIHsgcmV0dXJuIG5hbWUgfQo="}}}, nil)
	var pr struct {
		Number int `json:"number"`
		Head   struct {
			SHA string `json:"sha"`
		} `json:"head"`
	}
	srv.API(bot, "POST", "/repos/alice/hello/pulls", map[string]any{"title": "WIP: Greet people by name",
		"head": fmt.Sprintf("issuesmith/issue-%d", n), "base": "main", "body": fmt.Sprintf("Fixes #%d", n)}, &pr)
	srv.API(alice, "POST", fmt.Sprintf("/repos/alice/hello/issues/%d/comments", pr.Number), map[string]any{"body": "@issuesmith greet politely"}, nil)
	srv.API(alice, "POST", fmt.Sprintf("/repos/alice/hello/pulls/%d/reviews", pr.Number),
		map[string]any{"body": "@issuesmith please document the name parameter", "event": "COMMENT"}, nil)
	srv.API(alice, "POST", fmt.Sprintf("/repos/alice/hello/pulls/%d/reviews", pr.Number),
		map[string]any{"body": "@issuesmith looks right", "event": "APPROVED"}, nil)
	srv.API(alice, "POST", "/repos/alice/hello/statuses/"+pr.Head.SHA, map[string]any{"state": "failure", "context": "test", "description": "go test failed"}, nil)
	srv.API(alice, "PATCH", fmt.Sprintf("/repos/alice/hello/pulls/%d", pr.Number), map[string]any{"state": "closed"}, nil)
	srv.API(alice, "PATCH", fmt.Sprintf("/repos/alice/hello/issues/%d", n), map[string]any{"body": "Hello() should take the name."}, nil)
	srv.API(alice, "PUT", fmt.Sprintf("/repos/alice/hello/issues/%d/labels", n), map[string]any{"labels": []string{}}, nil)
	srv.API(alice, "PATCH", fmt.Sprintf("/repos/alice/hello/issues/%d", n), map[string]any{"state": "closed"}, nil)

	want := []string{"issues.opened", "issue_label.label_updated", "issue_comment.created", "issue_comment.created.2", "issue_comment.edited",
		"pull_request.opened", "pull_request_comment.created", "pull_request_review_comment.reviewed",
		"pull_request_review_approved.reviewed", "status", "pull_request.closed", "issues.edited", "issues.closed", "push"}
	deadline := time.After(60 * time.Second)
	for {
		mu.Lock()
		missing := []string{}
		for _, k := range want {
			if got[k] == nil {
				missing = append(missing, k)
			}
		}
		mu.Unlock()
		if len(missing) == 0 {
			break
		}
		select { // each delivery Gitea sends wakes the look again
		case <-arrived:
		case <-deadline:
			t.Fatalf("Gitea never sent %v", missing)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for k, b := range got {
		var v any
		require.NoError(t, json.Unmarshal(b, &v))
		pretty, err := json.MarshalIndent(v, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join("testdata", "gitea", k+".json"), append(pretty, '\n'), 0o644))
	}
}
