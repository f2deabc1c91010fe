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

// renderLoopGuard is the loop guard's one comment: what it refused, why,
// and when the bot listens again. It mentions nobody.
func renderLoopGuard(le *LoopError) string {
	what := map[string]string{loopRun: "runs", loopRevise: "revise rounds"}[le.Kind]
	return fmt.Sprintf("**issuesmith: the loop guard stopped here.** This issue had %d %s in the last hour, the most "+
		"this server allows (`ISSUESMITH_LOOP_MAX_PER_HOUR`), so the last request was not acted on.\n\n"+
		"Requests in the next hour are ignored without a reply, so that an exchange with another bot or a script "+
		"cannot keep spending. Ask again after the hour, or ask the bot's operator to raise the limit.\n", le.Max, what)
}
