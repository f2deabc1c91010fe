package repo

import "testing"

func TestBranchForTitle(t *testing.T) {
	t.Parallel()
	for title, want := range map[string]string{
		"Add a goodbye":                "issuesmith/add-a-goodbye",
		"  Fix: crash on `nil` map!  ": "issuesmith/fix-crash-on-nil-map",
		"Überprüfung der Länge":        "issuesmith/berpr-fung-der-l-nge",
		"":                             "issuesmith/solve",
		"!!!":                          "issuesmith/solve",
		"a very long title that goes on and on past forty characters": "issuesmith/a-very-long-title-that-goes-on-and-on-pa",
	} {
		got := BranchForTitle(title)
		if got != want {
			t.Errorf("BranchForTitle(%q) = %q, want %q", title, got, want)
		}
		if err := checkBranchName(got); err != nil {
			t.Errorf("%q: %v", got, err)
		}
	}
}
