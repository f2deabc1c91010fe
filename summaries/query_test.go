package summaries

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseQuery(t *testing.T) {
	t.Parallel()
	text := "`Session.send` fails with --max-retries in requests/adapters.py\n\n" +
		"Traceback (most recent call last):\n  File \"/x/site-packages/requests/sessions.py\", line 5, in send\n" +
		"src/_pytest/python.py:120: in collect\n" +
		"requests.exceptions.ConnectionError: Max retries exceeded with url: 'http://x' \n" +
		"W0511 reported for \"no such option\" and in the net/http package\n" +
		"```python\nclient = make_client()\nclient.get(url)\n```\n"
	q := parseQuery(text)
	assert.Equal(t, []string{"requests/adapters.py"}, q.paths, "frames are not counted again as named paths")
	assert.Equal(t, []string{"/x/site-packages/requests/sessions.py", "src/_pytest/python.py"}, q.frames)
	assert.Contains(t, q.modules, "requests.exceptions.ConnectionError")
	assert.Contains(t, q.dirs, "net/http")
	for _, id := range []string{"Session", "send", "ConnectionError", "make_client"} {
		assert.True(t, q.idents[id] || q.blockIdents[id], "ident %s", id)
	}
	assert.True(t, q.blockIdents["client"])
	assert.False(t, q.idents["the"])
	assert.NotContains(t, q.terms, "the", "English function words do not rank files")
	assert.Contains(t, q.terms, "retries")
	assert.Contains(t, parseQuery("the `once` helper").terms, "once", "a stop word written as code stays")
	assert.Equal(t, []string{"Session.send", "--max-retries", "no such option", "W0511", "Max retries exceeded with url:"}, q.phrases)
}
