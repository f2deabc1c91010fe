package redact

import (
	"errors"
	"math"
	"net/url"
	"regexp"
	"strings"
)

// Marker replaces every secret.
const Marker = "[redacted]"

// shape is a credential format: a pattern, and literals of which a match
// holds at least one (lower case when fold), so that text holding none of
// them skips the pattern. Redaction runs on every excerpt a session keeps;
// most text holds no credential and should cost a scan, not ten regexps.
type shape struct {
	re   *regexp.Regexp
	hint []string
	fold bool // hints are looked up in the lower-cased text
}

// shapes match credentials by their published shapes. Each match is replaced
// whole, except credentials in URLs, whose scheme separator and '@' stay.
var shapes = []shape{
	{regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)`), []string{"-----BEGIN "}, false},
	{regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9_]{16,}`), []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, false},           // GitHub tokens
	{regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{16,}`), []string{"github_pat_"}, false},                                   // fine-grained GitHub tokens
	{regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}`), []string{"eyJ"}, false},          // JWTs
	{regexp.MustCompile(`\b(AKIA|ASIA)[A-Z0-9]{16}\b`), []string{"AKIA", "ASIA"}, false},                                     // AWS access key ids
	{regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{20,}`), []string{"sk-"}, false},                                                  // model-provider API keys
	{regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`), []string{"xox"}, false},                                           // Slack tokens
	{regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`), []string{"AIza"}, false},                                                 // Google API keys
	{regexp.MustCompile(`(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{16,}`), []string{"bearer", "basic", "token"}, true}, // Authorization values
	{regexp.MustCompile(`://[^/\s:@]+:[^/\s@]+@`), []string{"://"}, false},                                                   // credentials in URLs
}

// keyed matches "password=…", "API_KEY: …", "secret": "…" and the like; the
// value (group 3) is redacted, the key kept for the reader.
var keyed = shape{regexp.MustCompile(`(?i)([A-Za-z0-9_.-]*(?:api[_-]?key|secret|token|passw(?:or)?d|pwd|private[_-]?key|access[_-]?key|credentials?)["']?)(\s*[:=]\s*["']?)([^\s"',;]{6,})`),
	[]string{"key", "secret", "token", "passw", "pwd", "credential"}, true}

// may reports whether text (lower holds it lower-cased) can hold a match.
func (sh shape) may(text, lower string) bool {
	in := text
	if sh.fold {
		in = lower
	}
	for _, h := range sh.hint {
		if strings.Contains(in, h) {
			return true
		}
	}
	return false
}

// minRandom is the length from which a word is tested for randomness.
const minRandom = 32

// Text returns s with every token-shaped string replaced by Marker: known
// credential formats, values given to secret-sounding keys, credentials in
// URLs, and long random-looking words (mixed case and digits, high
// entropy). Commit hashes and other plain hex survive.
func Text(s string) string {
	lower := strings.ToLower(s)
	for _, sh := range shapes {
		if !sh.may(s, lower) {
			continue
		}
		s = sh.re.ReplaceAllStringFunc(s, func(m string) string {
			if strings.HasPrefix(m, "://") {
				return "://" + Marker + "@"
			}
			return Marker
		})
		lower = strings.ToLower(s)
	}
	if keyed.may(s, lower) {
		s = keyed.re.ReplaceAllString(s, "${1}${2}"+Marker)
	}
	return randomWords(s)
}

// randomWords replaces each run of at least minRandom word characters
// ([A-Za-z0-9+/=_-]) that looksRandom with Marker, in one pass.
func randomWords(s string) string {
	var b strings.Builder
	last, start := 0, -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && wordByte(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start >= minRandom && looksRandom(s[start:i]) {
			if b.Len() == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[last:start])
			b.WriteString(Marker)
			last = i
		}
		start = -1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// wordByte reports whether c may be part of a random-looking word.
func wordByte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' ||
		c == '+' || c == '/' || c == '=' || c == '_' || c == '-'
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

// URL returns raw with any password replaced by Marker. Text that does not
// parse as a URL is cut before its last '@', where credentials would end.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.LastIndexByte(raw, '@'); i >= 0 {
			return Marker + raw[i:]
		}
		return raw
	}
	if u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); !ok {
		return raw
	}
	const hole = "REDACTEDPASSWORD" // survives escaping, unlike the marker's brackets
	u.User = url.UserPassword(u.User.Username(), hole)
	return strings.Replace(u.String(), ":"+hole+"@", ":"+Marker+"@", 1)
}

// Secrets redacts known secret values as well as every shape Text knows.
// The zero value knows no values. Values shorter than four bytes are
// ignored: they would cut ordinary words.
type Secrets struct{ values []string }

// New returns a Secrets that removes each of values.
func New(values ...string) Secrets {
	var s Secrets
	for _, v := range values {
		if len(v) >= 4 {
			s.values = append(s.values, v)
		}
	}
	return s
}

// Text returns t with every known value and every shape Text knows
// replaced by Marker.
func (s Secrets) Text(t string) string {
	for _, v := range s.values {
		t = strings.ReplaceAll(t, v, Marker)
	}
	return Text(t)
}

// Err returns err unchanged when its text holds no secret, so the chain
// stays reachable through errors.Is and errors.As. An error whose text held
// one comes back flattened to its redacted text, so no caller can print the
// secret through the chain.
func (s Secrets) Err(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if clean := s.Text(msg); clean != msg {
		return &redactedError{msg: clean, kind: err}
	}
	return err
}

// redactedError prints only the redacted text but keeps the original's
// sentinel identity for errors.Is (not errors.As: that could expose it).
type redactedError struct {
	msg  string
	kind error
}

func (e *redactedError) Error() string { return e.msg }

// Is reports whether target is in the original chain; the original is
// never handed out, so its text cannot be printed.
func (e *redactedError) Is(target error) bool { return errors.Is(e.kind, target) }
