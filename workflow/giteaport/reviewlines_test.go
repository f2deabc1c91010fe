package giteaport_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/gitea/giteatest"
)

// ReviewLines reads the line comments of the author's newest submitted
// review: not an older one, not another person's, not a review request;
// a line on the new side is Line, one on the old side OriginalLine.
func TestReviewLinesOfTheNewestReview(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	n := f.srv.AddPull(owner, repo, pull("WIP: x", branch, "open"))
	f.srv.AddReview(owner, repo, n, giteatest.Review{User: "alice", State: "COMMENT",
		Comments: []giteatest.ReviewComment{{Path: "a.go", Body: "older", Line: 1}}})
	f.srv.AddReview(owner, repo, n, giteatest.Review{User: "bob", State: "COMMENT",
		Comments: []giteatest.ReviewComment{{Path: "b.go", Body: "bob's", Line: 2}}})
	f.srv.AddReview(owner, repo, n, giteatest.Review{User: "alice", State: "REQUEST_CHANGES",
		Comments: []giteatest.ReviewComment{{Path: "a.go", Body: "@issuesmith rename this", Line: 3},
			{Path: "a.go", Body: "and this removed line", OldLine: 7}}})

	got, err := f.g.ReviewLines(t.Context(), owner, repo, n, "Alice")
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, "a.go", got[0].Path)
	require.Equal(t, 3, got[0].Line)
	require.Equal(t, "@issuesmith rename this", got[0].Body)
	require.Equal(t, "alice", got[0].Author)
	require.False(t, got[0].AuthorIsBot)
	require.Equal(t, 0, got[1].Line)
	require.Equal(t, 7, got[1].OriginalLine)

	none, err := f.g.ReviewLines(t.Context(), owner, repo, n, "carol")
	require.NoError(t, err)
	require.Empty(t, none)
}
