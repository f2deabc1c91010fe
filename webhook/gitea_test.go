package webhook

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/workflow"
)

// giteaRig is a Gitea endpoint over the in-memory intake.
type giteaRig struct {
	t   *testing.T
	h   *Handler
	rec *recorder
	seq int
}

func newGiteaRig(t *testing.T) *giteaRig {
	rec := &recorder{}
	h, err := New(Options{Secret: secret, Intake: rec, BotLogin: "issuesmith", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Gitea: &GiteaOptions{InstallationID: -1}})
	require.NoError(t, err)
	return &giteaRig{t: t, h: h, rec: rec}
}

// recorded is a delivery Gitea 1.26 sent (testdata/gitea, recorded by
// TestRecordGiteaPayloads); its event type is the file name's first part.
func recorded(t *testing.T, name string) (eventType string, body []byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "gitea", name+".json"))
	require.NoError(t, err)
	eventType, _, _ = strings.Cut(name, ".")
	return eventType, b
}

// send posts body as Gitea does (forgejo: Forgejo's own headers), signed
// with sig ("" signs it with the rig's secret), under delivery id ("": a
// new one).
func (g *giteaRig) send(eventType string, body []byte, id, sig string, forgejo bool) (int, string) {
	g.t.Helper()
	if id == "" {
		g.seq++
		id = "d0000000-0000-4000-8000-" + strings.Repeat("0", 11) + string(rune('a'+g.seq%26))
	}
	if sig == "" {
		sig = Sign(secret, body)
	}
	req := httptest.NewRequest(http.MethodPost, "/webhook/gitea", strings.NewReader(string(body)))
	prefix := "X-Gitea-"
	if forgejo {
		prefix = "X-Forgejo-"
	}
	req.Header.Set(prefix+"Event-Type", eventType)
	req.Header.Set(prefix+"Delivery", id)
	req.Header.Set("X-Hub-Signature-256", sig)
	w := httptest.NewRecorder()
	g.h.ServeHTTP(w, req)
	return w.Code, w.Body.String()
}

// TestGiteaDeliveries: each recorded Gitea delivery becomes the workflow's
// event (or is ignored, with its reason), as the bot's user "issuesmith".
func TestGiteaDeliveries(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file   string
		ignore string
		check  func(t *testing.T, ev workflow.Event)
	}{
		{file: "issues.opened", ignore: `issues action "opened"`},
		{file: "issue_label.label_updated", check: func(t *testing.T, ev workflow.Event) {
			require.Equal(t, workflow.LabelsSet, ev.Kind)
			require.Equal(t, 1, ev.Number)
			require.NotNil(t, ev.Labels, "the labels the delivery says (the workflow reads them again)")
			require.True(t, ev.CheckWrite)
		}},
		{file: "issue_comment.created", ignore: "sender issuesmith is a bot"},
		{file: "issue_comment.created.2", check: func(t *testing.T, ev workflow.Event) {
			require.Equal(t, workflow.CommandGiven, ev.Kind)
			require.Equal(t, workflow.CmdPlan, ev.Command)
			require.True(t, ev.CheckWrite)
		}},
		{file: "issue_comment.edited", check: func(t *testing.T, ev workflow.Event) {
			require.Equal(t, workflow.CommentEdited, ev.Kind)
			require.NotZero(t, ev.CommentID)
			require.Contains(t, ev.Body, "- [x] **Approve and implement**")
		}},
		{file: "pull_request.opened", ignore: `pull_request action "opened"`},
		{file: "pull_request_comment.created", check: func(t *testing.T, ev workflow.Event) {
			require.Equal(t, workflow.Mention, ev.Kind)
			require.True(t, ev.IsPR)
		}},
		{file: "pull_request_review_comment.reviewed", check: func(t *testing.T, ev workflow.Event) {
			require.Equal(t, workflow.ReviewSubmitted, ev.Kind)
			require.Equal(t, "commented", ev.State)
			require.Equal(t, "@issuesmith please document the name parameter", ev.Body)
			require.Positive(t, ev.CommentID, "an id from the body: Gitea sends none")
			require.True(t, ev.ReadLines, "its line comments are read from Gitea")
		}},
		{file: "pull_request_review_approved.reviewed", check: func(t *testing.T, ev workflow.Event) {
			require.Equal(t, workflow.ReviewSubmitted, ev.Kind)
			require.Equal(t, "approved", ev.State)
		}},
		{file: "status", check: func(t *testing.T, ev workflow.Event) {
			require.Equal(t, workflow.CIFinished, ev.Kind)
			require.Len(t, ev.SHA, 40)
			require.Empty(t, ev.PRs, "the workflow asks which pull request it heads")
		}},
		{file: "pull_request.closed", check: func(t *testing.T, ev workflow.Event) {
			require.Equal(t, workflow.PRClosed, ev.Kind)
			require.False(t, ev.Merged)
			require.Equal(t, "issuesmith/issue-1", ev.Head)
		}},
		{file: "issues.edited", check: func(t *testing.T, ev workflow.Event) { require.Equal(t, workflow.IssueEdited, ev.Kind) }},
		{file: "issues.closed", check: func(t *testing.T, ev workflow.Event) { require.Equal(t, workflow.Closed, ev.Kind) }},
		{file: "push", check: func(t *testing.T, ev workflow.Event) {
			require.Equal(t, workflow.Pushed, ev.Kind)
			require.Equal(t, "refs/heads/main", ev.Ref)
		}},
		{file: "push.2", ignore: "not the default branch"},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			g := newGiteaRig(t)
			code, msg := g.send(recordedType(t, tc.file))
			if tc.ignore != "" {
				require.Equal(t, http.StatusOK, code, msg)
				require.Contains(t, msg, tc.ignore)
				require.Empty(t, g.rec.got())
				return
			}
			require.Equal(t, http.StatusAccepted, code, msg)
			evs := g.rec.got()
			require.Len(t, evs, 1)
			ev := evs[0]
			require.Equal(t, int64(-1), ev.InstallationID)
			require.Equal(t, "alice", ev.Owner)
			require.Equal(t, "hello", ev.Repo)
			require.True(t, strings.HasPrefix(ev.Delivery, "gitea:"), ev.Delivery)
			tc.check(t, ev)
		})
	}
}

func recordedType(t *testing.T, name string) (string, []byte, string, string, bool) {
	et, b := recorded(t, name)
	return et, b, "", "", false
}

// TestGiteaRefusals: a forged or missing signature is refused before the
// body is read; a replayed delivery (same id, or the same body under a new
// id) is a duplicate; Forgejo's own headers are read like Gitea's; a
// label delivery whose body repeats an earlier one under a new id is not a
// replay (Gitea's label payloads can be identical).
func TestGiteaRefusals(t *testing.T) {
	t.Parallel()
	g := newGiteaRig(t)
	et, body := recorded(t, "issue_comment.created.2")
	forged := Sign([]byte("not the secret"), body)
	code, msg := g.send(et, body, "", forged, false)
	require.Equal(t, http.StatusUnauthorized, code, msg)
	code, _ = g.send(et, body, "", "sha256=", false)
	require.Equal(t, http.StatusUnauthorized, code)
	require.Empty(t, g.rec.got())

	code, msg = g.send(et, body, "11111111-2222-4333-8444-555555555555", "", true)
	require.Equal(t, http.StatusAccepted, code, msg)
	code, msg = g.send(et, body, "11111111-2222-4333-8444-555555555555", "", false)
	require.Equal(t, http.StatusOK, code, msg)
	require.Contains(t, msg, "duplicate")
	code, msg = g.send(et, body, "", "", false)
	require.Equal(t, http.StatusOK, code, msg)
	require.Contains(t, msg, "duplicate")
	require.Len(t, g.rec.got(), 1)

	et, body = recorded(t, "issue_label.label_updated")
	for range 2 {
		code, msg = g.send(et, body, "", "", false)
		require.Equal(t, http.StatusAccepted, code, msg)
	}
	require.Len(t, g.rec.got(), 3)

	tampered := strings.Replace(string(body), `"alice"`, `"mallory"`, 1)
	code, _ = g.send(et, []byte(tampered), "", Sign(secret, body), false)
	require.Equal(t, http.StatusUnauthorized, code, "the signature covers the body")
}
