package repo

import (
	"strings"
	"testing"
)

// git and whatever it starts (hooks, filters, credential helpers) never see
// the bot's secrets from the environment. Not parallel: it sets variables.
func TestGitGetsNoBotSecrets(t *testing.T) {
	t.Setenv("ISSUESMITH_MODEL_API_KEY", "sk-do-not-leak")
	t.Setenv("ISSUESMITH_WEBHOOK_SECRET", "hush")
	t.Setenv("PATH_KEPT_FOR_TEST", "yes")
	res, err := runGit(t.Context(), t.TempDir(), "", "-c", "alias.showenv=!env", "showenv")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.stdout, "sk-do-not-leak") || strings.Contains(res.stdout, "hush") {
		t.Fatalf("git saw the bot's secrets:\n%s", res.stdout)
	}
	if !strings.Contains(res.stdout, "PATH_KEPT_FOR_TEST=yes") {
		t.Fatalf("git lost the rest of the environment:\n%s", res.stdout)
	}
}
