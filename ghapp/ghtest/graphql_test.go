package ghtest

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fake validates GraphQL requests against GitHub's schema: a field
// GitHub does not have, a missing variable or a missing token fails the test.
func TestGraphQLIsValidatedAgainstGitHubsSchema(t *testing.T) {
	t.Parallel()
	rec := &recorder{TB: t}
	s := New(rec, Options{})
	s.AddRepo(Repo{Owner: "o", Name: "r"})
	tok := "token " + getToken(t, s)
	for name, body := range map[string]string{
		"unknown field":    `{"query": "mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { ready } } }", "variables": {"id": "x"}}`,
		"missing variable": `{"query": "mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft } } }"}`,
		"not graphql":      `{"q": 1}`,
	} {
		code, _ := do(t, s, "POST", "/graphql", tok, body)
		assert.Equal(t, http.StatusOK, code, name)
		assert.Len(t, rec.take(), 1, name)
	}
	code, _ := do(t, s, "POST", "/graphql", "", `{"query": "query { rateLimit { remaining } }"}`)
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Len(t, rec.take(), 1)
	code, body := do(t, s, "POST", "/graphql", tok, `{"query": "mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft } } }", "variables": {"id": "PR_kw1"}}`)
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "Could not resolve to a node")
	require.Empty(t, rec.take(), "an unknown node is GitHub's answer, not a malformed request")
}
