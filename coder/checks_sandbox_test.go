package coder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/internal/sandbox"
	"github.com/issuesmith/issuesmith/internal/sandbox/sandboxtest"
)

// TestCheckCommandsSandboxed: a configured check command runs in the
// worktree (it can write there) but reads neither the key file beside the
// worktree nor a hidden one under a visible folder, nor the host's /tmp; and
// refused checks (no sandbox) are never fed back to the model.
func TestCheckCommandsSandboxed(t *testing.T) {
	t.Parallel()
	sandboxtest.Need(t)
	base := t.TempDir()
	work, conf := filepath.Join(base, "work"), filepath.Join(base, "conf")
	for _, d := range []string{work, conf} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := filepath.Join(conf, "app.pem")
	sibling := filepath.Join(base, "other.pem")
	for _, k := range []string{key, sibling} {
		if err := os.WriteFile(k, []byte("PRIVATE-KEY-BYTES"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r := runner{dir: work, timeout: time.Minute,
		policy: sandbox.Policy{ReadOnly: []string{conf}, Hide: []string{key}}}
	res := r.commandChecks(t.Context(), []string{
		"cat " + key + " " + sibling + "; echo done",
		"echo made > made.txt && go env GOCACHE",
	}, nil)
	if len(res) != 2 {
		t.Fatalf("got %d results", len(res))
	}
	if strings.Contains(res[0].Output, "PRIVATE-KEY-BYTES") || !strings.Contains(res[0].Output, "done") {
		t.Errorf("key file check: %+v", res[0])
	}
	if !res[1].OK {
		t.Errorf("worktree write or go env failed: %+v", res[1])
	}
	if b, _ := os.ReadFile(filepath.Join(work, "made.txt")); string(b) != "made\n" {
		t.Errorf("worktree not writable: %q", b)
	}
}

func TestRefusedChecksAreNotFixable(t *testing.T) {
	t.Parallel()
	got := fixable([]CheckResult{{Name: "make test", Refused: true, Output: "not run"}}, []string{"a.go"})
	if len(got) != 0 {
		t.Fatalf("a refused check was fed back: %+v", got)
	}
}
