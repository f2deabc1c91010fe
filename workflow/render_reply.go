package workflow

import (
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/internal/ghtext"
)

// replyText is the bot's reply to a revise request. The summary and a
// failure carry the model's words: defused, so they mention nobody and
// close nothing.
func replyText(rec *reviseRecord) string {
	if rec.Failure != "" {
		return "I could not address this comment: " + ghtext.Defuse(rec.Failure)
	}
	text := fmt.Sprintf("Done in %s.", rec.SHA)
	if sum := strings.TrimSpace(rec.Summary); sum != "" {
		text += "\n\n" + ghtext.Defuse(sum)
	}
	return text
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
