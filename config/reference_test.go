package config

//go:generate go test -run ^TestReference$ -update .

import (
	"cmp"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The configuration reference (docs/configure-reference.md) and the example
// env file (docs/example.env) are generated from the settings' own
// definitions: the env tags and defaults of Server and Local (reflection),
// each field's doc comment (go/parser over this package), what ParseServer
// fills in when a setting is left unset, and what Validate calls required.
// `go generate ./config` (or this test with -update) rewrites them.
var update = flag.Bool("update", false, "rewrite docs/configure-reference.md and docs/example.env")

const (
	referencePath = "../docs/configure-reference.md"
	examplePath   = "../docs/example.env"
)

// section is how the settings of one struct are introduced.
type section struct{ title, page, intro string }

// sections names the reference's parts by the struct that defines them; a
// struct holding settings that is missing here fails the test.
var sections = map[string]section{
	"Server":   {"The App and the server", "configure.md", "The App's credentials, GitHub, the database and state, the listener, webhooks and redelivery, where branches are pushed."},
	"Model":    {"Models", "models.md", "Any OpenAI-compatible endpoint. Per-role settings take `role:value` pairs (roles: explorer, observer, planner, coder, summarizer, apply); per-model settings take `model=value` pairs, because model names may hold a colon (`qwen3:8b`). A role's value wins over its model's, which wins over the default. A repository's `.github/issuesmith.yml` can override a role's model, temperature, protocol and reply cap."},
	"Sessions": {"Sessions and traces", "sessions.md", "The sessions page and what the bot keeps of each run. The OpenTelemetry SDK's own `OTEL_*` variables (`OTEL_EXPORTER_OTLP_ENDPOINT`, …) are read from the environment only: see [traces](sessions.md#traces-in-your-own-tools)."},
	"Sandbox":  {"The sandbox", "sandbox.md", "The caches, disk floor and network ceiling of the sandbox that runs repository and model-written code."},
	"Limits":   {"Spending limits and the loop guard", "limits.md", "Each spending limit is what a repository gets and the ceiling its `.github/issuesmith.yml` may lower but never raise; `0` means no limit of that kind."},
}

// computedDefaults are the defaults code computes at run time rather than
// ParseServer (which the test asks for the others); each key must be a
// setting without an envDefault.
var computedDefaults = map[string]string{
	"STATE_DIR":  "systemd's `$STATE_DIRECTORY`, else `$XDG_STATE_HOME/issuesmith`, else `~/.local/state/issuesmith`",
	"BOT_LOGIN":  "asked from GitHub",
	"REPLICA_ID": "host name and listen port",
}

// refRow is one row of the reference: the variables one doc comment
// describes (a comment followed by several fields covers them all).
type refRow struct {
	names, defaults, forms []string
	doc, group             string
	required, local        bool
}

func TestReference(t *testing.T) {
	docs := fieldDocs(t)
	local := map[string]bool{}
	for _, n := range walkEnv(reflect.TypeFor[Local](), EnvPrefix, "Local") {
		local[n.name] = true
	}
	defaults := parsedDefaults(t)
	required := requiredSettings(t)
	var rows []*refRow
	for _, f := range walkEnv(reflect.TypeFor[Server](), EnvPrefix, "Server") {
		d, ok := docs[f.owner+"."+f.field]
		if !ok {
			t.Errorf("%s (%s.%s) has no doc comment: say what it does above the field", f.name, f.owner, f.field)
			continue
		}
		def := f.def
		short := strings.TrimPrefix(f.name, EnvPrefix)
		if c, ok := computedDefaults[short]; ok {
			require.Empty(t, def, "%s has an envDefault and a computed default", f.name)
			def = c
		} else if def == "" {
			def = defaults[f.name]
		} else {
			def = "`" + def + "`"
		}
		if d.continued && len(rows) > 0 {
			r := rows[len(rows)-1]
			r.names, r.defaults, r.forms = append(r.names, f.name), append(r.defaults, def), append(r.forms, f.form)
			r.required = r.required || required[f.name]
			continue
		}
		if _, ok := sections[f.owner]; !ok {
			t.Errorf("struct %s holds settings but has no section in the reference", f.owner)
		}
		rows = append(rows, &refRow{names: []string{f.name}, defaults: []string{def}, forms: []string{f.form},
			doc: d.text, group: f.owner, required: required[f.name], local: local[f.name]})
	}
	for name := range local {
		if !slices.ContainsFunc(rows, func(r *refRow) bool { return slices.Contains(r.names, name) }) {
			t.Errorf("%s is read by the local commands but is no server setting: the reference has no row for it", name)
		}
	}
	for short := range computedDefaults {
		if !slices.ContainsFunc(rows, func(r *refRow) bool { return slices.Contains(r.names, EnvPrefix+short) }) {
			t.Errorf("computedDefaults names %s, which is not a setting", short)
		}
	}
	ref, example := renderReference(rows, docs["FileVar"].text), renderExample(rows)
	if *update {
		require.NoError(t, os.WriteFile(referencePath, []byte(ref), 0o644))
		require.NoError(t, os.WriteFile(examplePath, []byte(example), 0o644))
		return
	}
	for path, want := range map[string]string{referencePath: ref, examplePath: example} {
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		if string(got) == want {
			continue
		}
		documented, defined := settingNames(string(got)), settingNames(want)
		for name := range defined {
			if !documented[name] {
				t.Errorf("%s: %s is a setting but is not documented there", path, name)
			}
		}
		for name := range documented {
			if !defined[name] {
				t.Errorf("%s: %s is documented there but is no setting", path, name)
			}
		}
		t.Errorf("%s is not what the settings' definitions say: run `go generate ./config` and commit it\n%s",
			path, lineDiff(string(got), want))
	}
}

// The example env file is one the server reads: with the required
// settings given, every default it shows is taken as it is.
func TestExampleEnvParses(t *testing.T) {
	b, err := os.ReadFile(examplePath)
	require.NoError(t, err)
	// Uncomment every line that shows a value: the defaults, written out.
	shown := regexp.MustCompile(`(?m)^# (` + EnvPrefix + `[A-Z0-9_]+=\S.*)$`)
	defaults := shown.ReplaceAllString(string(b), "$1")
	require.Greater(t, strings.Count(defaults, "\n"+EnvPrefix), 40)
	path := filepath.Join(t.TempDir(), "issuesmith.env")
	require.NoError(t, os.WriteFile(path, []byte(defaults), 0o600))
	base := []string{EnvPrefix + "STATE_DIR=/s", EnvPrefix + "APP_ID=1", EnvPrefix + "PRIVATE_KEY=PRIVATE KEY",
		EnvPrefix + "WEBHOOK_SECRET=x", EnvPrefix + "MODEL_NAME=m"}
	want, err := ParseServer(base)
	require.NoError(t, err)
	got, err := ParseServer(append(base, FileVar+"="+path))
	require.NoError(t, err)
	require.Equal(t, settingValues(reflect.ValueOf(*want)), settingValues(reflect.ValueOf(*got)),
		"the example's values are the defaults")
}

// settingValues are the values of a config struct's settings (the fields
// with an env tag, in the structs they sit in), by field name.
func settingValues(v reflect.Value) map[string]any {
	out := map[string]any{}
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if _, ok := f.Tag.Lookup("envPrefix"); ok && f.Type.Kind() == reflect.Struct {
			maps.Copy(out, settingValues(v.Field(i)))
		} else if _, ok := f.Tag.Lookup("env"); ok {
			out[f.Name] = v.Field(i).Interface()
		}
	}
	return out
}

// Every ISSUESMITH_ variable a page of the documentation names is a setting
// (or one of the few the tests and the local tools read), so a documented
// setting that no longer exists fails.
func TestDocsNameOnlyRealSettings(t *testing.T) {
	known := map[string]bool{FileVar: true}
	for _, f := range walkEnv(reflect.TypeFor[Server](), EnvPrefix, "Server") {
		known[f.name] = true
	}
	// Read outside config: by `bot search` (its index folder) and by the tests.
	for _, n := range []string{"SEARCH_CACHE"} {
		known[EnvPrefix+n] = true
	}
	pages, err := filepath.Glob("../docs/*")
	require.NoError(t, err)
	pages = append(pages, "../README.md")
	re := regexp.MustCompile(`ISSUESMITH_[A-Z0-9_]*[A-Z0-9](_\*)?`)
	for _, p := range pages {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		for _, name := range re.FindAllString(string(b), -1) {
			if prefix, ok := strings.CutSuffix(name, "*"); ok {
				if !slices.ContainsFunc(slices.Collect(maps.Keys(known)), func(k string) bool { return strings.HasPrefix(k, prefix) }) {
					t.Errorf("%s names %s, but no setting starts so", p, name)
				}
				continue
			}
			if !known[name] {
				t.Errorf("%s names %s, which is not a setting", p, name)
			}
		}
	}
}

// typeWords says in words the values of the setting types envForm names by
// their Go type.
var typeWords = map[string]string{
	"a llm.Protocol":    "`tools` or `text`",
	"a []string":        "a comma-separated list",
	", each VALUE text": "",
}

// envField is one variable of a config struct.
type envField struct{ name, def, form, owner, field string }

// walkEnv lists the variables of t in field order, with the struct that
// defines each (owner) and its default tag.
func walkEnv(t reflect.Type, prefix, owner string) []envField {
	var out []envField
	for f := range t.Fields() {
		if p, ok := f.Tag.Lookup("envPrefix"); ok && f.Type.Kind() == reflect.Struct {
			out = append(out, walkEnv(f.Type, prefix+p, f.Type.Name())...)
			continue
		}
		tag, ok := f.Tag.Lookup("env")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		def := f.Tag.Get("envDefault")
		if def == "" && f.Type.Kind() == reflect.Bool {
			def = "false"
		} else if def == "" && f.Type.Kind() >= reflect.Int && f.Type.Kind() <= reflect.Float64 && f.Type.Kind() != reflect.Uintptr {
			def = "0"
		}
		form := envForm(f)
		if f.Type == reflect.TypeFor[Bytes]() {
			form = "a size like `20GiB` or `512MiB` (KiB, MiB, GiB, TiB; KB, MB, GB, TB)"
		}
		for goType, words := range typeWords {
			form = strings.ReplaceAll(form, goType, words)
		}
		out = append(out, envField{name: prefix + name, def: def, form: form, owner: owner, field: f.Name})
	}
	return out
}

// fieldDoc is a field's doc comment; continued says the field shares the
// comment of the field above it (no comment of its own, no blank line).
type fieldDoc struct {
	text      string
	continued bool
}

// fieldDocs reads the doc comments of every struct field and constant of
// this package, keyed "Type.Field" (constants by name), with the package's
// Go names turned into the variables and values an operator writes.
func fieldDocs(t *testing.T) map[string]fieldDoc {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	docs := map[string]fieldDoc{}
	consts := map[string]string{}
	names := map[string]string{} // Go field name -> variable
	for _, f := range walkEnv(reflect.TypeFor[Server](), EnvPrefix, "Server") {
		names[f.field] = f.name
	}
	var parsed []*ast.File
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		require.NoError(t, err)
		parsed = append(parsed, f)
		ast.Inspect(f, func(n ast.Node) bool {
			if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Values) == 1 {
				if lit, ok := vs.Values[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					consts[vs.Names[0].Name], _ = strconv.Unquote(lit.Value)
				}
			}
			return true
		})
	}
	clean := func(cg *ast.CommentGroup, subject []string) string {
		text := strings.Join(strings.Fields(cg.Text()), " ")
		return operatorText(text, subject, names, consts)
	}
	for _, f := range parsed {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeSpec:
				st, ok := n.Type.(*ast.StructType)
				if !ok {
					return true
				}
				var prev *ast.Field
				var group *ast.CommentGroup // the comment the fields above share
				for _, fl := range st.Fields.List {
					for _, id := range fl.Names {
						key := n.Name.Name + "." + id.Name
						switch {
						case fl.Doc != nil:
							group = fl.Doc
							subject := []string{id.Name}
							for _, g := range st.Fields.List {
								if g != fl && g.Doc == nil && len(g.Names) > 0 && strings.Contains(fl.Doc.Text(), g.Names[0].Name) {
									subject = append(subject, g.Names[0].Name)
								}
							}
							docs[key] = fieldDoc{text: clean(fl.Doc, subject)}
						case prev != nil && group != nil && fset.Position(fl.Pos()).Line == fset.Position(prev.End()).Line+1 &&
							regexp.MustCompile(`\b`+id.Name+`\b`).MatchString(group.Text()):
							// Named by the comment of the fields just above it.
							docs[key] = fieldDoc{continued: true}
						}
					}
					prev = fl
				}
			case *ast.GenDecl:
				for _, spec := range n.Specs {
					vs, ok := spec.(*ast.ValueSpec)
					if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "FileVar" {
						continue
					}
					if doc := cmp.Or(vs.Doc, n.Doc); doc != nil {
						docs["FileVar"] = fieldDoc{text: strings.Replace(clean(doc, []string{"FileVar"}),
							"Names the variable that points at an", "An", 1)}
					}
				}
			}
			return true
		})
	}
	return docs
}

// operatorText rewrites a Go doc comment for an operator: the field names
// it opens with are dropped ("Workers is how many…" → "How many…"), other
// fields become their variables and string constants their values.
func operatorText(text string, subject []string, names, consts map[string]string) string {
	subject = slices.Clone(subject)
	slices.SortFunc(subject, func(a, b string) int { return len(b) - len(a) })
	opening := regexp.MustCompile(`^(?:(?:` + strings.Join(subject, "|") + `)\b(?:, | and | or |\s)*)+(?:is |are )?`)
	text = opening.ReplaceAllString(text, "")
	text = strings.ToUpper(text[:1]) + text[1:]
	return regexp.MustCompile(`\b[A-Z][A-Za-z]+\b`).ReplaceAllStringFunc(text, func(w string) string {
		if v, ok := names[w]; ok {
			return "`" + v + "`"
		}
		if v, ok := consts[w]; ok && w != "EnvPrefix" {
			return "`" + v + "`"
		}
		return w
	})
}

// parsedDefaults are the values ParseServer gives settings without an
// envDefault when they are left unset, with the state directory shown as
// "<state dir>".
func parsedDefaults(t *testing.T) map[string]string {
	s, err := ParseServer([]string{EnvPrefix + "STATE_DIR=<state dir>", EnvPrefix + "APP_ID=1",
		EnvPrefix + "PRIVATE_KEY=PRIVATE KEY", EnvPrefix + "WEBHOOK_SECRET=x", EnvPrefix + "MODEL_NAME=m"})
	require.NoError(t, err)
	out := map[string]string{}
	s.Sandbox.CacheDir = s.CacheRoot()
	for _, f := range []struct {
		name, value string
	}{
		{"DATABASE_URL", s.DatabaseURL}, {"DATA_DIR", s.DataDir}, {"HOLD_DIR", s.HoldDir}, {"CACHE_DIR", s.Sandbox.CacheDir},
	} {
		out[EnvPrefix+f.name] = "`" + strings.Replace(f.value, "<state dir>/data", "<data dir>", 1) + "`"
	}
	out[EnvPrefix+"DATA_DIR"] = "`<state dir>/data`"
	return out
}

// requiredSettings are the variables Validate calls required when nothing
// is set.
func requiredSettings(t *testing.T) map[string]bool {
	_, err := ParseServer([]string{EnvPrefix + "STATE_DIR=/s"})
	require.Error(t, err)
	out := map[string]bool{}
	for line := range strings.Lines(err.Error()) {
		line = strings.TrimPrefix(line, "server config: ")
		if name, why, ok := strings.Cut(line, ": "); ok && strings.HasPrefix(why, "required") {
			out[name] = true
		}
	}
	require.NotEmpty(t, out)
	return out
}

func renderReference(rows []*refRow, fileDoc string) string {
	var b strings.Builder
	b.WriteString("<!-- Generated from config/ by `go generate ./config`; do not edit. -->\n\n")
	b.WriteString("# Configuration reference\n\n")
	b.WriteString("Every setting `bot serve` reads, generated from its definition in `config/`. Settings are environment\n" +
		"variables, or `NAME=value` lines of a file: [example.env](example.env) lists them all with their defaults.\n" +
		"[Configure](configure.md) says how they are read and checked.\n\n")
	fmt.Fprintf(&b, "| variable | default | value | meaning |\n|---|---|---|---|\n")
	fmt.Fprintf(&b, "| `%s` | none | a file path | %s |\n\n", FileVar, fileDoc)
	b.WriteString("Settings marked *local* are also read by the local commands (`bot solve`, `bot summarize`, `bot migrate`,\n" +
		"`bot sessions`, `bot usage`, `bot replay`), from the environment or the same file.\n")
	group := ""
	for _, r := range rows {
		if r.group != group {
			group = r.group
			s := sections[group]
			fmt.Fprintf(&b, "\n## %s\n\n%s More in [%s](%s).\n\n", s.title, s.intro, strings.TrimSuffix(s.page, ".md"), s.page)
			b.WriteString("| variable | default | value | meaning |\n|---|---|---|---|\n")
		}
		names := make([]string, len(r.names))
		for i, n := range r.names {
			names[i] = "`" + n + "`"
		}
		def := strings.Join(slices.Compact(slices.Clone(r.defaults)), ", ")
		switch {
		case r.required:
			def = "required"
		case def == "":
			def = "empty"
		}
		doc := r.doc
		if r.local {
			doc = "*local* " + doc
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", strings.Join(names, ", "), def,
			strings.Join(slices.Compact(slices.Clone(r.forms)), "; "), strings.ReplaceAll(doc, "|", "\\|"))
	}
	return b.String()
}

func renderExample(rows []*refRow) string {
	var b strings.Builder
	b.WriteString("# issuesmith settings: every variable bot serve reads, with its default.\n" +
		"# Generated from config/ by `go generate ./config`; do not edit (copy it instead).\n" +
		"# Use it as ISSUESMITH_CONFIG_FILE (or bot serve --config FILE); the environment wins over it.\n" +
		"# The required settings are the uncommented lines; `bot setup` writes the App's for you.\n")
	group := ""
	for _, r := range rows {
		if r.group != group {
			group = r.group
			fmt.Fprintf(&b, "\n# --- %s (docs/%s) ---\n", sections[group].title, sections[group].page)
		}
		b.WriteString("\n")
		for _, line := range wrap(strings.ReplaceAll(r.doc, "`", ""), 100) {
			b.WriteString("# " + line + "\n")
		}
		for i, n := range r.names {
			def := strings.Trim(r.defaults[i], "`")
			if strings.Contains(r.defaults[i], " ") && !strings.HasPrefix(r.defaults[i], "`") || strings.Contains(def, "<") {
				fmt.Fprintf(&b, "# (default: %s)\n", strings.ReplaceAll(def, "`", ""))
				def = "" // a default computed at start-up
			}
			if r.required && i == 0 {
				fmt.Fprintf(&b, "%s=\n", n)
			} else {
				fmt.Fprintf(&b, "# %s=%s\n", n, def)
			}
		}
	}
	return b.String()
}

func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

// settingNames are the variables a generated file documents: the first
// cell of the reference's rows, the assignments of the example.
func settingNames(text string) map[string]bool {
	names := map[string]bool{}
	row := regexp.MustCompile(`(?m)^\| ([^|]+) \|`)
	assign := regexp.MustCompile(`(?m)^(?:# )?(` + EnvPrefix + `[A-Z0-9_]+)=`)
	for _, m := range row.FindAllStringSubmatch(text, -1) {
		for _, n := range regexp.MustCompile(EnvPrefix+`[A-Z0-9_]+`).FindAllString(m[1], -1) {
			names[n] = true
		}
	}
	for _, m := range assign.FindAllStringSubmatch(text, -1) {
		names[m[1]] = true
	}
	return names
}

// lineDiff names the first lines where got and want differ.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var out []string
	for i := 0; i < max(len(g), len(w)) && len(out) < 2; i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			out = append(out, fmt.Sprintf("line %d:\n  in the file: %s\n  generated:   %s", i+1, gl, wl))
		}
	}
	return strings.Join(out, "\n")
}
