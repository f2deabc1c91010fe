package llm

import "testing"

func TestAnswerText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"plain answer", "plain answer"},
		{"<think>draft <file-edit></think>\nfinal", "\nfinal"},
		{"<thinking>a</thinking>b<think>c</think>d", "bd"},
		{"opening tag eaten by the template\n</think>\nanswer", "\nanswer"},
		{"no tags </thinking> here", " here"},
	} {
		if got := AnswerText(tc.in); got != tc.want {
			t.Errorf("AnswerText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
