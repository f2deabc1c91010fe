package cievidence

import (
	"math"
	"regexp"
	"strings"
)

// Redacted replaces every secret-looking string.
const Redacted = "[redacted]"

// secretPatterns match credentials by their published shapes. Each match is
// replaced whole, except keyed values, whose key is kept for the reader.
var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)`),
	regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{20,}`),                                    // GitHub tokens
	regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}`),                                  // fine-grained GitHub tokens
	regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}`), // JWTs
	regexp.MustCompile(`\b(AKIA|ASIA)[A-Z0-9]{16}\b`),                                     // AWS access key ids
	regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{20,}`),                                         // model-provider API keys
	regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`),                                  // Slack tokens
	regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`),                                         // Google API keys
	regexp.MustCompile(`(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{16,}`),            // Authorization values
	regexp.MustCompile(`://[^/\s:@]+:[^/\s@]+@`),                                          // credentials in URLs
}

// keyed matches "password=…", "API_KEY: …", "secret": "…" and the like; the
// value (group 3) is redacted, the key kept.
var keyed = regexp.MustCompile(`(?i)([A-Za-z0-9_.-]*(?:api[_-]?key|secret|token|passw(?:or)?d|pwd|private[_-]?key|access[_-]?key|credentials?)["']?)(\s*[:=]\s*["']?)([^\s"',;]{6,})`)

// longWord is a candidate for the entropy test.
var longWord = regexp.MustCompile(`[A-Za-z0-9+/=_-]{32,}`)

// Redact replaces token-shaped strings in s with [redacted]: known
// credential formats, values given to secret-sounding keys, credentials in
// URLs, and long random-looking words (mixed case and digits, high
// entropy). Commit hashes and other plain hex survive: they are useful and
// carry no secret.
func Redact(s string) string {
	for _, re := range secretPatterns {
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			if strings.HasPrefix(m, "://") {
				return "://" + Redacted + "@"
			}
			return Redacted
		})
	}
	s = keyed.ReplaceAllString(s, "${1}${2}"+Redacted)
	return longWord.ReplaceAllStringFunc(s, func(w string) string {
		if looksRandom(w) {
			return Redacted
		}
		return w
	})
}

// looksRandom reports whether w mixes upper case, lower case and digits with
// high per-character entropy, as generated secrets do and identifiers,
// paths and hex hashes do not.
func looksRandom(w string) bool {
	var upper, lower, digit bool
	counts := map[rune]int{}
	for _, r := range w {
		switch {
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= '0' && r <= '9':
			digit = true
		}
		counts[r]++
	}
	if !upper || !lower || !digit {
		return false
	}
	n := float64(len(w))
	var h float64
	for _, c := range counts {
		p := float64(c) / n
		h -= p * math.Log2(p)
	}
	return h > 4.2
}
