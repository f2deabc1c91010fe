package webhook

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
)

// routedEvents are the X-GitHub-Event values the fuzzer sends, in a fixed
// order (the input's first byte picks one): every route, ping and one the
// handler does not route.
var routedEvents = []string{"issues", "issue_comment", "pull_request_review_comment", "pull_request_review",
	"pull_request", "installation", "installation_repositories", "push", "ping", "check_run"}

// FuzzRoutes drives signed, mutated real payloads (webhook/testdata, pointed
// at the fake GitHub's installation; plus each with one top-level field
// nulled, and null/empty bodies) through the real handler and every route,
// and no call to GitHub. Never a
// panic, never a 5xx; every answer is logged and observed exactly once.
func FuzzRoutes(f *testing.F) {
	gh := ghtest.New(f, ghtest.Options{})
	gh.AddRepo(ghtest.Repo{Owner: owner, Name: repo, DefaultBranch: "main"})
	gh.SetPermission(owner, repo, "Codertocat", "admin")
	var logged, observed atomic.Int64
	logger := slog.New(slog.NewTextHandler(countingWriter{w: io.Discard, n: &logged}, nil))
	h, err := New(Options{Secret: secret, Intake: &recorder{},
		BotLogin: gh.BotLogin(), Logger: logger,
		Observe: func(string, string, time.Duration) { observed.Add(1) }})
	if err != nil {
		f.Fatal(err)
	}
	seedRoutes(f, gh.Installation())
	var seq atomic.Int64
	f.Fuzz(func(t *testing.T, pick byte, body []byte) {
		event := routedEvents[int(pick)%len(routedEvents)]
		req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
		req.Header.Set("X-GitHub-Event", event)
		req.Header.Set("X-GitHub-Delivery", "fuzz-"+strconv.FormatInt(seq.Add(1), 10))
		req.Header.Set("X-Hub-Signature-256", Sign(secret, body))
		rec := httptest.NewRecorder()
		beforeLog, beforeObs := logged.Load(), observed.Load()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s: status %d for a signed payload: %s", event, rec.Code, rec.Body.String())
		}
		if logged.Load() == beforeLog || observed.Load() != beforeObs+1 {
			t.Fatalf("%s: answer %d not logged and observed once", event, rec.Code)
		}
	})
}

// seedRoutes adds every example payload under its event, each also with
// one top-level field set to null, and bodies of null and {} for every
// event.
func seedRoutes(f *testing.F, installation int64) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		f.Fatalf("no example payloads: %v", err)
	}
	for i := range routedEvents {
		f.Add(byte(i), []byte("null"))
		f.Add(byte(i), []byte("{}"))
	}
	for _, file := range files {
		event, _, _ := strings.Cut(filepath.Base(file), ".")
		pick := -1
		for i, e := range routedEvents {
			if e == event {
				pick = i
			}
		}
		if pick < 0 {
			continue
		}
		raw, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			f.Fatal(err)
		}
		set(m, "installation.id", installation)
		b, _ := json.Marshal(m)
		f.Add(byte(pick), b)
		for k := range m {
			c := make(map[string]any, len(m))
			for k2, v := range m {
				c[k2] = v
			}
			c[k] = nil
			b, _ := json.Marshal(c)
			f.Add(byte(pick), b)
		}
	}
}

// countingWriter counts log lines.
type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	c.n.Add(int64(bytes.Count(p, []byte("\n"))))
	return c.w.Write(p)
}
