package coder

import (
	"errors"
	"testing"
)

func TestGlobsMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		globs Globs
		path  string
		want  bool
	}{
		{"default workflow", DefaultBlocked, ".github/workflows/ci.yml", true},
		{"default nested", DefaultBlocked, ".github/workflows/sub/x.yaml", true},
		{"default unclean path", DefaultBlocked, "./.github//workflows/ci.yml", true},
		{"default backslashes", DefaultBlocked, `.github\workflows\ci.yml`, true},
		{"default dot-dot inside", DefaultBlocked, "docs/../.github/workflows/ci.yml", true},
		{"default composite action", DefaultBlocked, ".github/actions/setup/action.yml", true},
		{"default composite action script", DefaultBlocked, ".github/actions/setup/run.sh", true},
		{"default other github file", DefaultBlocked, ".github/CODEOWNERS", false},
		{"default normal file", DefaultBlocked, "main.go", false},
		{"double star middle", Globs{"secrets/**/*.pem"}, "secrets/a/b/key.pem", true},
		{"double star zero segments", Globs{"secrets/**/*.pem"}, "secrets/key.pem", true},
		{"double star no match", Globs{"secrets/**/*.pem"}, "secrets/key.txt", false},
		{"basename pattern any depth", Globs{"*.pem"}, "deep/dir/key.pem", true},
		{"leading double star", Globs{"**/testdata/**"}, "a/testdata/x.go", true},
		{"single star one segment", Globs{"vendor/*"}, "vendor/a/b.go", false},
		{"empty pattern ignored", Globs{"", " "}, "main.go", false},
		{"empty list", Globs{}, ".github/workflows/ci.yml", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.globs.Match(tt.path); got != tt.want {
				t.Errorf("%v.Match(%q) = %v, want %v", tt.globs, tt.path, got, tt.want)
			}
		})
	}
}

func TestGlobsValidate(t *testing.T) {
	t.Parallel()
	if err := (Globs{".github/workflows/**", "**/*.pem"}).Validate(); err != nil {
		t.Fatalf("valid globs: %v", err)
	}
	err := Globs{"ok/**", "bad/[x"}.Validate()
	if err == nil {
		t.Fatal("malformed glob accepted")
	}
	var ge *GlobError
	if !errors.As(err, &ge) || ge.Pattern != "bad/[x" {
		t.Fatalf("error %v does not name the bad pattern", err)
	}
}
