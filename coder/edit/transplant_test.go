package edit

import "testing"

func TestTransplant(t *testing.T) {
	tests := []struct {
		name, s, f, r, want string
	}{
		{"same text", "x := 1", "x := 1", "x := 2", "x := 2"},
		{"smart quote kept", `m := "Don't"; n := 1`, `m := "Don’t"; n := 1`, `m := "Don't"; n := 2`, `m := "Don’t"; n := 2`},
		{"changed char is the model's", `a - b`, `a – b`, `a + b`, `a + b`},
		{"aligned spaces kept", `k: 1 // one`, `k:    1 // one`, `k: 2 // one`, `k:    2 // one`},
		{"space removed by the model", `s := 'a b'`, `s := 'a  b'`, `s := 'ab'`, `s := 'ab'`},
		{"trailing space in search", "foo();  ", "foo();", "foo(); // x", "foo(); // x"},
		{"trailing space in file", "foo();", "foo();  ", "foo(); // x", "foo(); // x"},
		{"indent of the new line kept", "  x = “a”", "\tx = \"a\"", "\t\tx = “a” + b", "\t\tx = \"a\" + b"},
		{"ellipsis", "wait... go(1)", "wait… go(1)", "wait... go(2)", "wait… go(2)"},
		{"nothing shared", "a“b”", "a\"b\"", "zzz", "zzz"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := transplant(tc.s, tc.f, tc.r); got != tc.want {
				t.Errorf("transplant(%q, %q, %q) = %q, want %q", tc.s, tc.f, tc.r, got, tc.want)
			}
		})
	}
}

func TestChangedPairs(t *testing.T) {
	// search: a b c d; repl: a B c D E (b→B paired; d→D,E unequal runs).
	got := changedPairs([]int{0, -1, 2, -1, -1}, 4)
	want := []int{-1, 1, -1, -1, -1}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("changedPairs = %v, want %v", got, want)
		}
	}
	// search: a b; repl: A B (no copied line): paired line by line.
	if got := changedPairs([]int{-1, -1}, 2); got[0] != 0 || got[1] != 1 {
		t.Fatalf("changedPairs = %v, want [0 1]", got)
	}
}

// FuzzTransplant: transplant never panics and never changes what the
// model's line reads as once whitespace and typography are folded.
func FuzzTransplant(f *testing.F) {
	f.Add(`m := "Don't"; n := 1`, `m := "Don’t"; n := 1`, `m := "Don't"; n := 2`)
	f.Add("k: 1 // one", "k:    1 // one", "k: 2 // one")
	f.Add("a b", "a  b", "a   b")
	f.Fuzz(func(t *testing.T, s, file, r string) {
		got := transplant(s, file, r)
		if got == r {
			return
		}
		if collapse(fold(got)) != collapse(fold(r)) || leadWS(got) != leadWS(r) {
			t.Fatalf("transplant(%q, %q, %q) = %q reads differently", s, file, r, got)
		}
	})
}
