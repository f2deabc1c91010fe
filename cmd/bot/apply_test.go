package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/coder/edit"
	"github.com/issuesmith/issuesmith/repo/gittest"
)

// runApply runs `bot apply` in-process and returns its exit status (as main
// would compute it for our errors), stdout and stderr.
func runApply(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	out, errOut, err := execCmd(t, newRootCmd(), stdin, append([]string{"apply"}, args...)...)
	code := 0
	if err != nil {
		code = 1
		var ee *exitError
		if errors.As(err, &ee) {
			code = ee.code
		}
	}
	return code, out, errOut
}

func TestApplyCommand(t *testing.T) {
	t.Parallel()
	good := "------- SEARCH\nold\n=======\nnew\n+++++++ REPLACE\n"
	stale := "------- SEARCH\nolder\n=======\nnew\n+++++++ REPLACE\n"
	tests := []struct {
		name     string
		stdin    string
		args     func(dir string) []string
		code     int
		want     string // file content afterwards
		contains string // in stdout+stderr
	}{
		{"applies", good, func(d string) []string { return []string{"--root", d, "--file", "a.txt"} }, 0, "new\n", "1 of 1 blocks applied"},
		{"refuses stale", stale, func(d string) []string { return []string{"--root", d, "--file", "a.txt"} }, 1, "old\n", "REFUSED (not_found)"},
		{"missing root", good, func(string) []string { return []string{"--file", "a.txt"} }, 2, "old\n", ""},
		{"root is not a folder", good, func(d string) []string { return []string{"--root", filepath.Join(d, "a.txt")} }, 2, "old\n", ""},
		{"unknown format", good, func(d string) []string { return []string{"--root", d, "--format", "xml"} }, 2, "old\n", ""},
		{"format restricts", good, func(d string) []string { return []string{"--root", d, "--file", "a.txt", "--format", "diff"} }, 1, "old\n", "no diff edit found"},
		{"no edits", "hello", func(d string) []string { return []string{"--root", d, "--file", "a.txt"} }, 1, "old\n", "No edit applied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			file := filepath.Join(dir, "a.txt")
			if err := os.WriteFile(file, []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runApply(t, tt.stdin, tt.args(dir)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
			if !strings.Contains(out+errOut, tt.contains) {
				t.Errorf("output lacks %q:\n%s%s", tt.contains, out, errOut)
			}
			got, _ := os.ReadFile(file)
			if string(got) != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestApplyJSON checks the documented JSON report of a refusal.
func TestApplyJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("x := 1\ny := 2\nx := 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := "<file-edit filePath=\"a.go\">\n------- SEARCH\ny := 2\n=======\ny := 3\n+++++++ REPLACE\n------- SEARCH\nx := 1\n=======\nx := 5\n+++++++ REPLACE\n</file-edit>\n"
	code, out, _ := runApply(t, text, "--root", dir, "--json")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	var rep edit.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("bad JSON %q: %v", out, err)
	}
	if rep.Written || len(rep.Blocks) != 2 || rep.Blocks[0].Status != edit.StatusApplied ||
		rep.Blocks[1].Reason != edit.ReasonAmbiguous || len(rep.Blocks[1].Candidates) != 2 {
		t.Errorf("unexpected report: %s", out)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.go")); string(got) != "x := 1\ny := 2\nx := 1\n" {
		t.Errorf("atomic apply changed the file: %q", got)
	}
	code, out, _ = runApply(t, text, "--root", dir, "--json", "--partial")
	if code != 1 || !strings.Contains(out, `"written": true`) {
		t.Errorf("partial: exit %d, report %s", code, out)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.go")); string(got) != "x := 1\ny := 3\nx := 1\n" {
		t.Errorf("partial apply: %q", got)
	}
}

// TestApplyRefusesGitAndBlocked: .git/ is never written (in any spelling),
// the App's default blocked paths only with --allow-blocked.
func TestApplyRefusesGitAndBlocked(t *testing.T) {
	t.Parallel()
	whole := func(p string) string {
		return "<file-edit filePath=\"" + p + "\">\n------- SEARCH\n=======\n#!/bin/sh\nexit 0\n+++++++ REPLACE\n</file-edit>\n"
	}
	tests := []struct {
		path    string
		allow   bool
		written bool
	}{
		{".git/hooks/pre-commit", false, false},
		{".git/hooks/pre-commit", true, false},
		{"./.git//config", true, false},
		{".GIT/hooks/post-checkout", true, false},
		{"vendor/mod/.git/hooks/pre-push", true, false},
		{".github/workflows/ci.yml", false, false},
		{".github/actions/setup/action.yml", false, false},
		{".github/workflows/ci.yml", true, true},
		{"scripts/ok.sh", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := []string{"--root", dir}
			if tt.allow {
				args = append(args, "--allow-blocked")
			}
			code, out, errOut := runApply(t, whole(tt.path), args...)
			_, statErr := os.Stat(filepath.Join(dir, filepath.FromSlash(tt.path)))
			if tt.written {
				if code != 0 || statErr != nil {
					t.Errorf("exit %d, stat %v: want written\n%s%s", code, statErr, out, errOut)
				}
				return
			}
			if code != 1 || !strings.Contains(out+errOut, "blocked") {
				t.Errorf("exit %d, want 1 and a blocked refusal:\n%s%s", code, out, errOut)
			}
			if statErr == nil {
				t.Errorf("%s was written", tt.path)
			}
			if tt.path == ".GIT/hooks/post-checkout" {
				if _, err := os.Stat(filepath.Join(dir, ".git", "hooks", "post-checkout")); err == nil {
					t.Errorf("written through case folding")
				}
			}
		})
	}
}

// TestApplyNeverWritesIntoASubmodule: a block creating a file inside a git
// submodule's folder is refused; the others apply.
func TestApplyNeverWritesIntoASubmodule(t *testing.T) {
	t.Parallel()
	sm := gittest.NewSubmodule(t, map[string]string{"main.go": "package main\n"}, "integration")
	text := "<file-edit filePath=\"integration/new.txt\">\n------- SEARCH\n=======\nhello\n+++++++ REPLACE\n</file-edit>\n" +
		"<file-edit filePath=\"notes.txt\">\n------- SEARCH\n=======\nhello\n+++++++ REPLACE\n</file-edit>\n"
	code, out, errOut := runApply(t, text, "--root", sm.Dir, "--partial")
	require.Equal(t, 1, code, "%s%s", out, errOut)
	require.Contains(t, out+errOut, "submodule")
	_, err := os.Stat(filepath.Join(sm.Dir, "integration", "new.txt"))
	require.True(t, os.IsNotExist(err), "a file was written into the submodule")
	got, err := os.ReadFile(filepath.Join(sm.Dir, "notes.txt"))
	require.NoError(t, err)
	require.Equal(t, "hello\n", string(got))
}
