package redact

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, gone, kept string }{
		{"classic GitHub token", "auth ghp_abcdefghijklmnopqrstuvwxyz0123 ok", "ghp_abcdefghijklmnopqrstuvwxyz0123", "auth"},
		{"installation token", "push with ghs_16CharactersLong1 failed", "ghs_16CharactersLong1", "failed"},
		{"fine-grained token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "github_pat_11ABCDEFG", ""},
		{"URL password", "fatal: https://x-access-token:s3cr3t@github.com/o/r.git", "s3cr3t", "github.com/o/r.git"},
		{"provider key", "key sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX rejected", "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX", "rejected"},
		{"bearer", "Authorization: Bearer abcdefghijklmnop1234", "abcdefghijklmnop1234", "Authorization"},
		{"keyed value", `DB_PASSWORD="hunter2hunter2"`, "hunter2hunter2", "DB_PASSWORD"},
		{"random word", "id Zq8vB2mXk9LpR4tW7yN1cF5hJ3dS6gA0eU", "Zq8vB2mXk9LpR4tW7yN1cF5hJ3dS6gA0eU", "id"},
		{"private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----", "MIIE", ""},
		{"commit hash kept", "at 7ce24a8e1f3b2c4d5e6f708192a3b4c5d6e7f809", "", "7ce24a8e1f3b2c4d5e6f708192a3b4c5d6e7f809"},
		{"identifier kept", "TestConversationCommentAndReviewRevise failed", "", "TestConversationCommentAndReviewRevise"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Text(tc.in)
			if tc.gone != "" {
				require.NotContains(t, got, tc.gone)
				require.Contains(t, got, Marker)
			} else {
				require.Equal(t, tc.in, got)
			}
			require.Contains(t, got, tc.kept)
		})
	}
}

func TestURL(t *testing.T) {
	t.Parallel()
	require.Equal(t, "postgres://bot:[redacted]@db/x", URL("postgres://bot:pw@db/x"))
	require.Equal(t, "https://bot@db/x", URL("https://bot@db/x"))
	require.Equal(t, "https://example.com/v1", URL("https://example.com/v1"))
	require.Equal(t, Marker+"@host:5432", URL("post gres://u:p\x7f@host:5432"))
}

func TestSecrets(t *testing.T) {
	t.Parallel()
	s := New("key-123456", "ab", "")
	require.Equal(t, "calling with "+Marker+" and ab", s.Text("calling with key-123456 and ab"))

	clean := fmt.Errorf("open: %w", fs.ErrNotExist)
	require.Same(t, clean, s.Err(clean), "an error without a secret keeps its chain")

	dirty := fmt.Errorf("dial with key-123456: %w", fs.ErrPermission)
	got := s.Err(dirty)
	require.Equal(t, "dial with "+Marker+": permission denied", got.Error())
	require.True(t, errors.Is(got, fs.ErrPermission), "the sentinel is still recognised")
	var pe *fs.PathError
	require.False(t, errors.As(got, &pe))
	require.Nil(t, s.Err(nil))
	var zero Secrets
	require.Equal(t, "plain", zero.Text("plain"))
}

// TestTextOnCILogs: the shapes CI logs carry (cievidence renders them).
func TestTextOnCILogs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, gone, kept string }{
		{"DEPLOY_TOKEN: ghp_R4nd0mL00k1ngT0k3nV4lu3AbCdEfGh1234", "ghp_R4nd0m", "DEPLOY_TOKEN"},
		{"using github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "github_pat_11", "using"},
		{"auth eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U ok", "eyJhbGci", "ok"},
		{"aws AKIAIOSFODNN7EXAMPLE region", "AKIAIOSFODNN7EXAMPLE", "region"},
		{`password="hunter2hunter2"`, "hunter2", "password="},
		{"Authorization: Bearer abcdefghijklmnop0123456789", "abcdefghijklmnop0123456789", "Authorization"},
		{"clone https://bot:s3cr3tvalue@github.com/acme/calc", "s3cr3tvalue", "github.com/acme/calc"},
		{"key sk-proj-abcdefghijklmnopqrstuvwxyz0123", "sk-proj", "key"},
		{"blob Zx8Qw2Lm9Vb4Nc7Ty1Ru5Ei3Op6As0DfGhJkLzXcVbNm end", "Zx8Qw2", "end"},
	} {
		got := Text(tc.in)
		if strings.Contains(got, tc.gone) || !strings.Contains(got, tc.kept) || !strings.Contains(got, Marker) {
			t.Errorf("Text(%q) = %q: want %q gone, %q kept", tc.in, got, tc.gone, tc.kept)
		}
	}
	// What a fix needs survives: commit hashes, identifiers, paths, errors.
	for _, keep := range []string{
		"HEAD is now at 3f2c1a9b8e7d6c5b4a3928171615141312111009",
		"--- FAIL: TestServeAndSolveCodeWithTheSameOptions (0.01s)",
		"internal/parse/expression_parser_test.go:120: unexpected token",
		"token: ***",
	} {
		if got := Text(keep); got != keep {
			t.Errorf("Text(%q) = %q, want it unchanged", keep, got)
		}
	}
}

// reference is Text without the shortcuts: every pattern run on all text,
// and the random-word test through a regexp. Text must agree with it.
func reference(s string) string {
	for _, sh := range shapes {
		s = sh.re.ReplaceAllStringFunc(s, func(m string) string {
			if strings.HasPrefix(m, "://") {
				return "://" + Marker + "@"
			}
			return Marker
		})
	}
	s = keyed.re.ReplaceAllString(s, "${1}${2}"+Marker)
	return regexp.MustCompile(`[A-Za-z0-9+/=_-]{32,}`).ReplaceAllStringFunc(s, func(w string) string {
		if looksRandom(w) {
			return Marker
		}
		return w
	})
}

// TestTextAgreesWithReference: the hint shortcuts and the one-pass word
// scan change the cost, never the result, on text mixing every shape with
// code, mixed case and non-ASCII.
func TestTextAgreesWithReference(t *testing.T) {
	t.Parallel()
	parts := []string{"func main() {", " ", "\n", "ghp_abcdefghijklmnopqrstuvwxyz0123", "GHP_ABCDEFGHIJKLMNOPQRST",
		"Bearer abcdefghijklmnop1234", "TOKEN   Zq8vB2mXk9LpR4tW", "https://u:p@h/x", "://", "@", "API_KEY=",
		"'s3cr3tvalue'", "Passwd: hunter2hunter2", "eyJabcdefgh.eyJabcdefgh.abcdefgh", "AKIAABCDEFGHIJKLMNOP",
		"sk-", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz", "0123456789+/=_-", "Zq8vB2mXk9LpR4tW7yN1cF5hJ3",
		"-----BEGIN EC PRIVATE KEY-----", "-----END EC PRIVATE KEY-----", "xoxb-1234567890ab", "AIza", "é", "İ", "ß"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		in := b.String()
		require.Equal(t, reference(in), Text(in), "case %d: %q", i, in)
	}
}

// How long redacting a 6 KB source excerpt takes (a session stores many):
// go test ./internal/redact -run '^$' -bench .
func BenchmarkText(b *testing.B) {
	src := strings.Repeat("func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.serve(w, r) }\n", 70)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		Text(src)
	}
}
