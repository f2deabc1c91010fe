package oracle

import (
	"slices"
	"testing"

	"github.com/issuesmith/issuesmith/llm"
)

// The files an exploration record notes (the explorer's compressed steps,
// as preagent renders them into the task message) count as read: the
// oracle does not open them again after each compression, and the issue's
// own text naming a path does not count.
func TestRecordedFilesCountAsRead(t *testing.T) {
	t.Parallel()
	task := "<issue>\nThe crash is in scanner/walk.go.\n</issue>\n\n" +
		"[Exploration record: my earlier steps were compressed into these notes and their raw file windows dropped. " +
		"Open a file again if its exact text is needed.]\n" +
		"Files I looked at:\n" +
		"- model/album.go: The album model. Verdict: relevant, a file the fix changes.\n" +
		"- core/auth/auth.go: Auth helpers. Verdict: not relevant, unrelated.\n" +
		"Also looked at, not relevant: log/log.go, conf/configuration.go\n" +
		"My current hypothesis: The fix changes model/album.go.\n"
	got := recorded([]llm.Message{{Role: llm.System, Content: "You explore."}, {Role: llm.User, Content: task}})
	want := []string{"model/album.go", "core/auth/auth.go", "log/log.go", "conf/configuration.go"}
	if !slices.Equal(got, want) {
		t.Fatalf("recorded = %q, want %q", got, want)
	}
	if got := recorded([]llm.Message{{Role: llm.User, Content: "<issue>\n- scanner/walk.go: Verdict: relevant\n</issue>"}}); len(got) != 0 {
		t.Fatalf("an issue without a record: %q", got)
	}
}
