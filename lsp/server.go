package lsp

import (
	"os/exec"
	"path/filepath"
	"strings"
)

// Server says how to start one language's server.
type Server struct {
	Lang       string   // "go", "typescript", "python"
	LanguageID string   // the LSP languageId of files it checks
	Exts       []string // file extensions it checks, with the dot
	Argv       []string // the command; Argv[0] is looked up on PATH
}

// Servers are the language servers the bot knows, in lookup order.
var Servers = []Server{
	{Lang: "go", LanguageID: "go", Exts: []string{".go"}, Argv: []string{"gopls"}},
	{Lang: "typescript", LanguageID: "typescript", Exts: []string{".ts", ".tsx", ".mts", ".cts"},
		Argv: []string{"typescript-language-server", "--stdio"}},
	{Lang: "javascript", LanguageID: "javascript", Exts: []string{".js", ".jsx", ".mjs", ".cjs"},
		Argv: []string{"typescript-language-server", "--stdio"}},
	{Lang: "python", LanguageID: "python", Exts: []string{".py"}, Argv: []string{"pyright-langserver", "--stdio"}},
}

// ServerFor returns the server of path's language.
func ServerFor(path string) (Server, bool) { return serverFor(Servers, path) }

func serverFor(servers []Server, path string) (Server, bool) {
	ext := strings.ToLower(filepath.Ext(path))
	for _, s := range servers {
		for _, e := range s.Exts {
			if e == ext {
				return s, true
			}
		}
	}
	return Server{}, false
}

// binary is Argv[0] resolved on PATH, with symbolic links followed (npm's
// bin entries are links into the package).
func (s Server) binary() (string, error) {
	p, err := exec.LookPath(s.Argv[0])
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r, nil
	}
	return p, nil
}

// runtimeRoot is the installation the server runs on, for the sandbox to
// show read-only when it is not under /usr: the Go toolchain gopls calls
// (GOROOT, from the go binary on PATH), or node for the npm servers.
func runtimeRoot(s Server) string {
	name := "node"
	if s.Lang == "go" {
		name = "go"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return filepath.Dir(filepath.Dir(p)) // <root>/bin/go → <root>
}

// installRoot is the folder the sandbox must show read-only for the server
// to run: the node_modules folder holding an npm server (its sibling
// packages, typescript among them), else the binary's folder.
func installRoot(bin string) string {
	if i := strings.LastIndex(bin, string(filepath.Separator)+"node_modules"+string(filepath.Separator)); i >= 0 {
		return bin[:i+len("/node_modules")]
	}
	return filepath.Dir(bin)
}
