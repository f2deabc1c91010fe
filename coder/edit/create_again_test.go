package edit

import "testing"

// A create resent for a file that already holds exactly that content (a
// resumed run re-sends its edits) is already applied, whatever the file's
// line endings or final newline; different content is still refused.
func TestCreateOfIdenticalFileIsAlreadyApplied(t *testing.T) {
	t.Parallel()
	body := "package greet\n\nfunc Y() {}\n"
	for _, tc := range []struct {
		name, before string
		want         Status
		reason       Reason
	}{
		{"same bytes", body, StatusAlreadyApplied, ""},
		{"crlf", "package greet\r\n\r\nfunc Y() {}\r\n", StatusAlreadyApplied, ""},
		{"no final newline", "package greet\n\nfunc Y() {}", StatusAlreadyApplied, ""},
		{"bom", "\xef\xbb\xbf" + body, StatusAlreadyApplied, ""},
		{"other content", "package greet\n\nfunc Z() {}\n", StatusRefused, ReasonFileExists},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep, after, _ := applyOne(t, "greet.go", []byte(tc.before), 0o644, sr("greet.go", "", body), Options{})
			if len(rep.Blocks) != 1 {
				t.Fatalf("blocks: %+v", rep.Blocks)
			}
			b := rep.Blocks[0]
			if b.Status != tc.want || b.Reason != tc.reason {
				t.Fatalf("status %s (%s: %s), want %s (%s)", b.Status, b.Reason, b.Message, tc.want, tc.reason)
			}
			if string(after) != tc.before {
				t.Fatalf("the file changed: %q", after)
			}
		})
	}
}
