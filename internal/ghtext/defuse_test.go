package ghtext_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/internal/ghtext"
)

func TestDefuse(t *testing.T) {
	t.Parallel()
	z := "&#8203;"
	tests := []struct{ name, in, want string }{
		{"mention", "ping @alice and @acme/security", "ping @" + z + "alice and @" + z + "acme/security"},
		{"line start", "@bob please", "@" + z + "bob please"},
		{"email is no mention", "mail a@b.example", "mail a@b.example"},
		{"code span kept", "call `@decorator` here", "call `@decorator` here"},
		{"fence kept", "```\n@x fixes #3\n```\n@y", "```\n@x fixes #3\n```\n@" + z + "y"},
		{"closing ref", "This fixes #12 and Closes: acme/app#3", "This f" + z + "ixes #12 and C" + z + "loses: acme/app#3"},
		{"closing url", "resolves https://github.com/a/b/issues/9", "r" + z + "esolves https://github.com/a/b/issues/9"},
		{"plain ref stays", "see #12", "see #12"},
		{"hidden comment", "step <!-- hidden -->", "step &lt;!-- hidden -->"},
		{"marker", "<!-- issuesmith:plan run=x v=1 -->", "&lt;!-- issuesmith:plan run=x v=1 -->"},
		{"unclosed backtick is text", "a ` @bob fixes #2", "a ` @" + z + "bob f" + z + "ixes #2"},
		{"escaped at", "\\@bob", "\\@" + z + "bob"},
		{"escaped backtick opens nothing", "\\`@bob`", "\\`@" + z + "bob`"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ghtext.Defuse(tc.in)
			require.Equal(t, tc.want, got)
			require.Equal(t, got, ghtext.Defuse(got), "idempotent")
		})
	}
}

func FuzzDefuse(f *testing.F) {
	for _, s := range []string{"@a `@b` c", "fixes #1 ``x`` `", "\\`@c` <!-- x", "```\n@d\n```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := ghtext.Defuse(s)
		if twice := ghtext.Defuse(once); twice != once {
			t.Fatalf("not idempotent:\n%q\n%q\n%q", s, once, twice)
		}
	})
}

func TestDefuseText(t *testing.T) {
	t.Parallel()
	got := ghtext.DefuseText("Fix greeting, closes #4 (cc @alice)")
	require.Equal(t, "Fix greeting, c\u200bloses #4 (cc @\u200balice)", got)
	require.Equal(t, got, ghtext.DefuseText(got), "idempotent")
}
