package webhook

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestListedBotsStartNothing: an account the server lists as a bot
// (ISSUESMITH_BOTS), though GitHub calls it a User, starts no work on any
// trigger path: label, commands, a mention on the bot's PR, review
// comments and reviews. The same events from a person are dispatched.
func TestListedBotsStartNothing(t *testing.T) {
	t.Parallel()
	other := map[string]any{"login": "Helper-Bot", "id": 77, "type": "User"}
	for _, tc := range []struct {
		name, file, event string
		edit              func(r *rig, m map[string]any)
	}{
		{"label", "issues.labeled", "issues", func(_ *rig, m map[string]any) { set(m, "label.name", "issuesmith") }},
		{"/implement", "issue_comment.created", "issue_comment", func(_ *rig, m map[string]any) { set(m, "comment.body", "/implement") }},
		{"/retry", "issue_comment.created", "issue_comment", func(_ *rig, m map[string]any) { set(m, "comment.body", "/retry") }},
		{"mention", "issue_comment.created", "issue_comment", func(r *rig, m map[string]any) {
			set(m, "issue.pull_request", map[string]any{"url": "https://api.github.com/repos/x/y/pulls/1"})
			set(m, "issue.user", r.botUser())
			set(m, "comment.body", "@issuesmith please fix")
		}},
		{"review comment", "pull_request_review_comment.created", "pull_request_review_comment", func(r *rig, m map[string]any) {
			set(m, "pull_request.user", r.botUser())
			set(m, "comment.body", "@issuesmith rename this")
		}},
		{"review", "pull_request_review.submitted", "pull_request_review", func(r *rig, m map[string]any) {
			set(m, "pull_request.user", r.botUser())
			set(m, "review.body", "@issuesmith more tests")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRigWith(t, 0, func(o *Options) { o.Bots = []string{"helper-bot"} })
			m := payload(t, tc.file, r.gh.Installation())
			tc.edit(r, m)
			m["sender"] = other
			code, body := r.send(r.newDelivery(tc.event, m))
			require.Equal(t, 200, code, body)
			require.Empty(t, r.disp.got(), "a listed bot's event reached the workflow")
			require.Zero(t, r.gh.Calls(permOp))

			person := newRigWith(t, 0, func(o *Options) { o.Bots = []string{"helper-bot"} })
			m = payload(t, tc.file, person.gh.Installation())
			tc.edit(person, m)
			code, body = person.send(person.newDelivery(tc.event, m))
			require.Equal(t, 202, code, body)
			require.Len(t, person.disp.got(), 1, "the same event from a person is dispatched")
		})
	}
}
