package edit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/issuesmith/issuesmith/repo/gittest"
)

// In a clone whose submodule folder is empty (as the bot's clones leave
// it), a block on the submodule itself, one creating a file in it and a
// move into it are refused with ReasonSubmodule and a message saying why;
// nothing is written there, and the other blocks of the message apply.
func TestSubmodulePathsAreRefused(t *testing.T) {
	t.Parallel()
	sm := gittest.NewSubmodule(t, map[string]string{"main.txt": "one\n", "old.txt": "old\n"}, "integration")
	dir := sm.Clone(t)
	msg := sr("integration", "", "new pointer\n") +
		sr("integration/lib.txt", "", "library\n") +
		sr("main.txt", "one\n", "two\n") +
		"*** Begin Patch\n*** Update File: old.txt\n*** Move to: integration/old.txt\n@@\n-old\n+old, moved\n*** End Patch\n"
	rep, err := Apply(dir, msg, Options{Partial: true, Submodules: []string{"integration"},
		Blocked: func(string) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Blocks) != 5 { // the patch's hunk and its move are two blocks
		t.Fatalf("blocks: %+v", rep.Blocks)
	}
	want := map[int]string{
		0: "integration is a git submodule (a pointer to a commit of another repository), not a file of this repository; the bot cannot change it",
		1: "integration/lib.txt lies in the git submodule integration (another repository, pinned at a commit); the bot cannot change its files",
		4: "integration/old.txt lies in the git submodule integration",
	}
	for i, msg := range want {
		b := rep.Blocks[i]
		if b.Status != StatusRefused || b.Reason != ReasonSubmodule || !strings.Contains(b.Message, msg) {
			t.Errorf("block %d: %s (%s) %q, want refused (submodule) %q", i+1, b.Status, b.Reason, b.Message, msg)
		}
	}
	if b := rep.Blocks[2]; b.Status != StatusApplied {
		t.Errorf("main.txt: %s (%s: %s)", b.Status, b.Reason, b.Message)
	}
	if got := strings.Join(rep.Changed, ","); got != "main.txt,old.txt" {
		t.Errorf("changed %q, want main.txt and old.txt (its hunk, not its move)", got)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "integration"))
	if err != nil || len(entries) != 0 {
		t.Errorf("the submodule folder holds %v (%v), want it empty", entries, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "old.txt")); string(b) != "old, moved\n" {
		t.Errorf("old.txt = %q, want it edited in place", b)
	}
	// The feedback the model reads names the reason.
	if fb := rep.Feedback(); !strings.Contains(fb, "REFUSED (submodule)") {
		t.Errorf("feedback without the reason:\n%s", fb)
	}
}
