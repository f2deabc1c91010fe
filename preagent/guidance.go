package preagent

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/issuesmith/issuesmith/repo"
)

// GuidanceFiles are the repository files whose content guides the explorer
// and planner, in the order they are read.
var GuidanceFiles = []string{"AGENTS.md", ".github/copilot-instructions.md", "CONTRIBUTING.md"}

// DefaultGuidanceChars bounds the guidance text as a whole; each file gets
// an equal share of what is left when it is read.
const DefaultGuidanceChars = 6000

// FileReader reads one file of a repository by its relative slash path,
// confined to the repository; *repo.Workspace satisfies it.
type FileReader interface {
	ReadBytes(path string) ([]byte, error)
}

// LoadGuidance reads the guidance files that exist in the repository and
// returns them as one block of at most limit characters (0 means
// DefaultGuidanceChars), each file under a "## path" heading, cleaned like
// issue text and cut with a note when too long. A missing file is skipped;
// any other read error is returned.
func LoadGuidance(r FileReader, limit int) (string, error) {
	if limit <= 0 {
		limit = DefaultGuidanceChars
	}
	var parts []string
	left := limit
	for i, name := range GuidanceFiles {
		data, err := r.ReadBytes(name)
		if err != nil {
			if isNotExist(err) {
				continue
			}
			return "", fmt.Errorf("read guidance %s: %w", name, err)
		}
		text := CleanText(string(data))
		if text == "" {
			continue
		}
		share := left / (len(GuidanceFiles) - i)
		if len(text) > share {
			text = cutRunes(text, share) + "\n[… cut …]"
		}
		left -= len(text)
		parts = append(parts, "## "+name+"\n"+text)
	}
	return strings.Join(parts, "\n\n"), nil
}

// isNotExist reports a missing file from either the standard library or a
// workspace error that wraps fs.ErrNotExist or says so.
func isNotExist(err error) bool {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, repo.ErrNotExist) {
		return true
	}
	var nf interface{ NotExist() bool }
	return errors.As(err, &nf) && nf.NotExist()
}

// cutRunes cuts s to at most n bytes without splitting a rune.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n]
}
