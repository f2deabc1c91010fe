package summaries

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/issuesmith/issuesmith/internal/procenv"
)

var (
	ctagsOnce sync.Once
	ctagsPath string // empty when universal-ctags is not installed
)

// findCtags looks for universal-ctags with JSON output (Exuberant ctags
// lacks it and is not used).
func findCtags() {
	for _, name := range []string{"ctags", "universal-ctags", "ctags-universal"} {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		out, err := ctagsCommand(context.Background(), p, "--version").Output()
		if err == nil && bytes.Contains(out, []byte("Universal Ctags")) && bytes.Contains(out, []byte("+json")) {
			ctagsPath = p
			return
		}
	}
}

type ctagsTag struct {
	Type     string `json:"_type"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Line     int    `json:"line"`
	End      int    `json:"end"`
	Scope    string `json:"scope"`
	Pattern  string `json:"pattern"`
	Sig      string `json:"signature"`
	Language string `json:"language"`
}

// ctagsCommand prepares one ctags run with procenv's scrubbed environment:
// the bot's secrets never reach a parser of untrusted files.
func ctagsCommand(ctx context.Context, bin string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = procenv.Scrubbed()
	return cmd
}

// ctagsOutline runs universal-ctags over src (written to a temporary file
// with the original extension so ctags picks the language). ok is false when
// ctags is missing, fails, or knows no language for the file.
func ctagsOutline(p string, src []byte) ([]Symbol, bool) {
	ctagsOnce.Do(findCtags)
	if ctagsPath == "" {
		return nil, false
	}
	return ctagsOutlineWith(ctagsPath, p, src)
}

// ctagsOutlineWith is ctagsOutline with the ctags binary bin.
func ctagsOutlineWith(bin, p string, src []byte) ([]Symbol, bool) {
	f, err := os.CreateTemp("", "outline-*"+path.Ext(p))
	if err != nil {
		return nil, false
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(src); err != nil {
		f.Close()
		return nil, false
	}
	if err := f.Close(); err != nil {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := ctagsCommand(ctx, bin, "--output-format=json", "--fields=+neS", "-f", "-", f.Name())
	out, err := cmd.Output()
	if err != nil {
		return nil, false
	}
	var syms []Symbol
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	any := false
	for sc.Scan() {
		var t ctagsTag
		if json.Unmarshal(sc.Bytes(), &t) != nil || t.Type != "tag" {
			continue
		}
		any = true
		if !ctagsKinds[t.Kind] {
			continue
		}
		end := t.End
		if end < t.Line {
			end = t.Line
		}
		sig := strings.TrimSuffix(strings.TrimPrefix(t.Pattern, "/^"), "$/")
		syms = append(syms, Symbol{Kind: t.Kind, Name: t.Name, Signature: oneLine(strings.TrimRight(sig, "{ "), 160),
			StartLine: t.Line, EndLine: end})
	}
	if !any {
		// ctags gave no tags: either no parser for the language, or
		// nothing to tag. The plain fallback may still find headings.
		return nil, false
	}
	sort.SliceStable(syms, func(i, j int) bool { return syms[i].StartLine < syms[j].StartLine })
	return syms, true
}

// ctagsKinds are the ctags kinds kept in an outline (definitions of types
// and callables, across languages), leaving out variables and locals.
var ctagsKinds = map[string]bool{
	"class": true, "function": true, "method": true, "module": true, "interface": true, "struct": true,
	"enum": true, "trait": true, "type": true, "typedef": true, "namespace": true, "singletonMethod": true,
	"subroutine": true, "object": true, "protocol": true, "macro": true, "chapter": true, "section": true,
	"subsection": true, "heading1": true, "heading2": true, "heading3": true, "package": true,
	"implementation": true, "constructor": true, "func": true, "fun": true,
}
