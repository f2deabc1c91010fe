package coder

import "testing"

// gofmt writes LF; a file whose lines end in CRLF keeps them, so formatting
// an edit does not rewrite every line of a Windows-edited file.
func TestFormatGoKeepsLineEndings(t *testing.T) {
	for _, tt := range []struct{ name, src, want string }{
		{"lf", "package a\nfunc F()  {}\n", "package a\n\nfunc F() {}\n"},
		{"crlf", "package a\r\nfunc F()  {}\r\n", "package a\r\n\r\nfunc F() {}\r\n"},
		{"mostly lf", "package a\n\nfunc F()  {}\r\n", "package a\n\nfunc F() {}\n"},
	} {
		out, err := formatGo([]byte(tt.src))
		if err != nil || string(out) != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.name, out, err, tt.want)
		}
	}
}
