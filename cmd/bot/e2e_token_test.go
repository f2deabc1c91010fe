package main

import (
	"bytes"
	"encoding/base64"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// assertTokensNowhere checks that no issued token (raw or in the Basic
// form git sends) appears in the server's logs, in any comment, review
// comment or PR body on the fake GitHub, or in any file the server stored
// (git remotes and config of the clone cache and worktrees, the database).
func (e *e2e) assertTokensNowhere(logs string, stored ...string) {
	e.t.Helper()
	tokens := e.gh.IssuedTokens()
	require.NotEmpty(e.t, tokens, "the fake GitHub issued no installation token")
	var texts []string
	for _, c := range e.gh.Comments(e2eOwner, e2eRepo, e.issue) {
		texts = append(texts, c.Body)
	}
	for _, pr := range e.gh.PullRequests(e2eOwner, e2eRepo) {
		texts = append(texts, pr.Body)
		for _, c := range e.gh.Comments(e2eOwner, e2eRepo, pr.Number) {
			texts = append(texts, c.Body)
		}
		for _, c := range e.gh.ReviewComments(e2eOwner, e2eRepo, pr.Number) {
			texts = append(texts, c.Body)
		}
	}
	for _, tok := range tokens {
		basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + tok))
		for _, secret := range []string{tok, basic} {
			require.NotContains(e.t, logs, secret, "a token in the server's logs")
			for _, s := range texts {
				require.NotContains(e.t, s, secret, "a token in a comment or PR body")
			}
			for _, root := range stored {
				filesContaining(e.t, root, secret)
			}
		}
	}
}

// filesContaining fails the test for every file under root holding secret.
func filesContaining(t *testing.T, root, secret string) {
	t.Helper()
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		data, err := io.ReadAll(f)
		if err != nil {
			return err
		}
		files++
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("a token is stored in %s", p)
		}
		return nil
	})
	require.NoError(t, err)
	require.Positive(t, files, "nothing stored under %s", root)
}
