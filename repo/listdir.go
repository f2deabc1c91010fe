package repo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// ListDir limits.
const (
	// DefaultListDepth is the depth shown when ListDirParams.Depth is 0.
	DefaultListDepth = 2
	// MaxListDepth caps ListDirParams.Depth.
	MaxListDepth = 6
	// maxListLines caps the rendered tree so one call cannot flood a prompt.
	maxListLines = 400
)

// ListDirParams are the arguments of the list_dir tool.
type ListDirParams struct {
	Path  string `json:"path,omitempty" jsonschema:"description=Directory to list, relative to the repository root (default: the root)"`
	Depth int    `json:"depth,omitempty" jsonschema:"description=How many levels to show (default 2, at most 6); deeper folders are folded with their file counts"`
}

// dirNode is one entry of the tree ListDir renders.
type dirNode struct {
	name     string
	dir      bool
	link     string // symlink target, if the entry is a symlink
	sub      bool   // a git submodule's folder (never entered)
	children []*dirNode
	files    int // files below a folded directory
	dirs     int // directories below a folded directory
}

// ListDir renders the tree under p.Path down to p.Depth levels, honouring
// .gitignore and skipping .git, vendor/ and node_modules/; a git submodule's
// folder is listed, marked as one, and not entered. Folders at the depth
// limit are folded and show how many files and folders they hold. Errors
// satisfying IsModelError are mistakes to report to the model.
func (w *Workspace) ListDir(ctx context.Context, p ListDirParams) (string, error) {
	start, err := Clean(p.Path)
	if err != nil {
		return "", err
	}
	depth := p.Depth
	if depth <= 0 {
		depth = DefaultListDepth
	}
	depth = min(depth, MaxListDepth)
	if err := w.checkSubmodule(start); err != nil {
		return "", err
	}
	st, err := w.stat(start)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%q is a file, not a directory (use read_file): %w", start, ErrNotDir)
	}
	tb := &treeBuilder{w: w, start: start, depth: depth, top: &dirNode{name: start, dir: true}}
	tb.nodes = map[string]*dirNode{start: tb.top}
	if err := w.walk(ctx, start, tb.add); err != nil {
		return "", fmt.Errorf("list %s: %w", start, err)
	}
	return renderTree(tb.top, depth, tb.files, tb.dirs), nil
}

// treeBuilder collects the entries of a walk into the tree ListDir shows,
// counting what lies below the depth limit into the folded folder above it.
type treeBuilder struct {
	w           *Workspace
	start       string
	depth       int
	top         *dirNode
	nodes       map[string]*dirNode // shown directories by path
	files, dirs int                 // totals below start
}

// add takes one walk entry.
func (tb *treeBuilder) add(rel string, d fs.DirEntry) error {
	if rel == tb.start {
		return nil
	}
	if d.IsDir() {
		tb.dirs++
	} else {
		tb.files++
	}
	sub := rel
	if tb.start != "." {
		sub = strings.TrimPrefix(rel, tb.start+"/")
	}
	parts := strings.Split(sub, "/")
	if len(parts) > tb.depth {
		if folded := tb.nodes[path.Join(tb.start, path.Join(parts[:tb.depth]...))]; folded != nil {
			if d.IsDir() {
				folded.dirs++
			} else {
				folded.files++
			}
		}
		return nil
	}
	n := &dirNode{name: d.Name(), dir: d.IsDir(), sub: d.IsDir() && tb.w.isSubmodule(rel)}
	if d.Type()&fs.ModeSymlink != 0 {
		n.link = tb.w.linkTarget(rel)
	}
	parent := tb.nodes[path.Dir(rel)]
	if parent == nil {
		return nil
	}
	parent.children = append(parent.children, n)
	if d.IsDir() {
		tb.nodes[rel] = n
	}
	return nil

}

// renderTree prints the tree with two-space indentation, directories first.
func renderTree(top *dirNode, depth, files, dirs int) string {
	var b strings.Builder
	name := top.name
	if name == "." {
		name = "(repository root)"
	}
	fmt.Fprintf(&b, "%s: %s, %s (showing %s)\n", name, plural(files, "file"), plural(dirs, "folder"), plural(depth, "level"))
	lines, hidden := 0, 0
	var rec func(n *dirNode, level int)
	rec = func(n *dirNode, level int) {
		sort.Slice(n.children, func(i, j int) bool {
			a, c := n.children[i], n.children[j]
			if a.dir != c.dir {
				return a.dir
			}
			return a.name < c.name
		})
		for _, c := range n.children {
			if lines >= maxListLines {
				hidden++
				continue
			}
			lines++
			b.WriteString(strings.Repeat("  ", level))
			b.WriteString(describeNode(c, level+1 == depth))
			b.WriteByte('\n')
			if c.dir {
				rec(c, level+1)
			}
		}
	}
	rec(top, 0)
	if len(top.children) == 0 {
		b.WriteString("(empty)\n")
	}
	if hidden > 0 {
		fmt.Fprintf(&b, "… %d more entries not shown; list a subfolder or use a smaller depth\n", hidden)
	}
	return b.String()
}

// describeNode renders one entry: a file name, "dir/" with its counts when
// folded, "name -> target" for a symlink, or a submodule's folder marked.
func describeNode(n *dirNode, atLimit bool) string {
	switch {
	case n.link != "":
		return n.name + " -> " + n.link
	case !n.dir:
		return n.name
	case n.sub:
		return n.name + "/ (git submodule: another repository pinned at a commit; the bot cannot read or change it)"
	case atLimit && n.files+n.dirs > 0:
		return fmt.Sprintf("%s/ (%s)", n.name, counts(n.files, n.dirs))
	case len(n.children) == 0 && n.files+n.dirs == 0:
		return n.name + "/ (empty)"
	default:
		return n.name + "/"
	}
}

// counts renders "3 files, 1 folder".
func counts(files, dirs int) string {
	s := plural(files, "file")
	if dirs > 0 {
		s += ", " + plural(dirs, "folder")
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "ch") {
		return fmt.Sprintf("%d %ses", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// linkTarget describes where the symlink at rel points: its target when that
// stays inside the root, otherwise only that it leads out (the outside path
// itself is not shown).
func (w *Workspace) linkTarget(rel string) string {
	target, err := w.root.Readlink(rel)
	if err != nil {
		return "(unreadable link)"
	}
	_, err = w.root.Stat(rel)
	if errors.Is(classify(rel, err), ErrOutsideRoot) || path.IsAbs(target) {
		return "(outside the repository)"
	}
	if err != nil {
		return target + " (broken link)"
	}
	return target
}
