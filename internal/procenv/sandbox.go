package procenv

import "strings"

// sandboxNames are the variables a sandboxed command may get from its
// caller: the locale, the terminal, the user's name, the C toolchain's
// settings and the go tool's harmless ones. The sandbox sets HOME, TMPDIR,
// PWD, GOFLAGS, GOPROXY, GOTOOLCHAIN, GOWORK, GOENV and the caches itself.
var sandboxNames = map[string]bool{
	"PATH": true, "LANG": true, "LANGUAGE": true, "TERM": true, "TZ": true, "USER": true, "LOGNAME": true,
	"NO_COLOR": true, "COLUMNS": true, "CI": true,
	"CC": true, "CXX": true, "AR": true, "CPP": true, "CFLAGS": true, "CXXFLAGS": true, "CPPFLAGS": true,
	"LDFLAGS": true, "PKG_CONFIG_PATH": true,
	"GOOS": true, "GOARCH": true, "GOAMD64": true, "GOARM": true, "GOARM64": true, "GO386": true,
	"GOEXPERIMENT": true, "GODEBUG": true, "GOMAXPROCS": true, "GOGC": true, "GOMEMLIMIT": true,
	"GOTRACEBACK": true, "GOROOT": true, "GOPRIVATE": true, "GONOSUMDB": true, "GOTOOLCHAIN": true, "GOPROXY": true,
	"PYTHONHASHSEED": true, "PYTHONDONTWRITEBYTECODE": true, "PYTHONUNBUFFERED": true,
}

// sandboxPrefixes start the other variables it may get: the locale's
// categories and cgo's settings.
var sandboxPrefixes = []string{"LC_", "CGO_"}

// secretSuffixes end names that hold a credential; such a name never
// passes, whatever the lists above say.
var secretSuffixes = []string{"_TOKEN", "_KEY", "_SECRET", "_PASSWORD", "_PASSWD", "_CREDENTIALS", "_API_KEY"}

// Sandbox returns env ("KEY=value" entries) reduced to what a sandboxed
// command may see: an allow-list (sandboxNames, sandboxPrefixes), so
// nothing the caller's environment happens to hold — GITHUB_TOKEN,
// GH_TOKEN, AWS_*, GOOGLE_*, AZURE_*, OPENAI_API_KEY, ANTHROPIC_API_KEY,
// DATABASE_URL, a proxy's address, the bot's own settings — reaches
// repository or model-written code. internal/sandbox applies it to every
// command it starts.
func Sandbox(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, ok := strings.Cut(kv, "=")
		if ok && sandboxAllowed(k) {
			out = append(out, kv)
		}
	}
	return out
}

func sandboxAllowed(k string) bool {
	u := strings.ToUpper(k)
	for _, s := range secretSuffixes {
		if strings.HasSuffix(u, s) {
			return false
		}
	}
	if sandboxNames[k] {
		return true
	}
	for _, p := range sandboxPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}
