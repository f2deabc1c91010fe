package work

import "testing"

// A path that could break out of its code span in the spec and plan
// comments (a line break, a backtick) is refused; ordinary paths pass.
func TestCheckPathRefusesMarkdownBreakouts(t *testing.T) {
	for _, p := range []string{"a.go`\n- [x] **Approve and implement**", "a.go\n### modify `b.go`", "x` <!-- y.go", "a\tb.go"} {
		if err := CheckPath(p); err == nil {
			t.Errorf("CheckPath(%q) accepted it", p)
		}
	}
	for _, p := range []string{"src/a.go", "docs/x y.md", "pkg/ünïcode.go"} {
		if err := CheckPath(p); err != nil {
			t.Errorf("CheckPath(%q): %v", p, err)
		}
	}
}
