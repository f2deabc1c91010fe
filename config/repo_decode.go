package config

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"reflect"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/issuesmith/issuesmith/llm"
)

// RepoError says what is wrong in a .github/issuesmith.yml and where. The
// workflow posts it as a comment and runs nothing.
type RepoError struct {
	// Key is the dotted key path, e.g. "roles.coder.max_steps" ("" for the
	// document itself).
	Key string
	// Line is the 1-based line in the file (0 when unknown).
	Line int
	Msg  string
}

// Error renders "path:line: key: message".
func (e *RepoError) Error() string {
	where := RepoPath
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d", RepoPath, e.Line)
	}
	if e.Key == "" {
		return fmt.Sprintf("%s: %s", where, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", where, e.Key, e.Msg)
}

var durationType = reflect.TypeFor[Duration]()

// decodeStrict decodes data into c, walking the YAML tree so that every
// error knows its key and line; then it checks the values.
func decodeStrict(data []byte, c *Repo) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return &RepoError{Line: yamlErrLine(err), Msg: "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	if len(doc.Content) == 0 {
		return nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return &RepoError{Line: root.Line, Msg: "must be a mapping of keys to values"}
	}
	if v := keyNode(root, "version"); v == nil {
		return &RepoError{Key: "version", Line: 1, Msg: fmt.Sprintf("missing: start the file with \"version: %d\"", RepoVersion)}
	}
	if err := decodeNode(root, reflect.ValueOf(c).Elem(), ""); err != nil {
		return err
	}
	return c.check(root)
}

// decodeNode decodes n into v (a settable value), merging mappings over what
// v already holds so that defaults survive for keys left out.
func decodeNode(n *yaml.Node, v reflect.Value, key string) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch {
	case v.Type() == durationType:
		var s string
		if err := n.Decode(&s); err != nil {
			return typeErr(n, key, "a duration like \"90s\" or \"15m\"")
		}
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return &RepoError{Key: key, Line: n.Line, Msg: fmt.Sprintf("%q is not a duration like \"90s\" or \"15m\"", s)}
		}
		v.SetInt(int64(d))
		return nil
	case v.Kind() == reflect.Struct:
		return decodeStruct(n, v, key)
	case v.Kind() == reflect.Map:
		return decodeMap(n, v, key)
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Struct:
		if n.Kind != yaml.SequenceNode {
			return typeErr(n, key, "a list")
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			if err := decodeNode(item, s.Index(i), fmt.Sprintf("%s[%d]", key, i)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	}
	fresh := reflect.New(v.Type())
	if err := n.Decode(fresh.Interface()); err != nil {
		return typeErr(n, key, describe(v.Type()))
	}
	v.Set(fresh.Elem())
	return nil
}

func decodeStruct(n *yaml.Node, v reflect.Value, key string) error {
	if n.Kind != yaml.MappingNode {
		return typeErr(n, key, "a mapping")
	}
	fields := map[string]int{}
	var names []string
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ",")
		fields[name] = i
		names = append(names, name)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		fi, ok := fields[k.Value]
		if !ok {
			return &RepoError{Key: join(key, k.Value), Line: k.Line,
				Msg: fmt.Sprintf("unknown key (known keys: %s)", strings.Join(names, ", "))}
		}
		if err := decodeNode(val, v.Field(fi), join(key, k.Value)); err != nil {
			return err
		}
	}
	return nil
}

func decodeMap(n *yaml.Node, v reflect.Value, key string) error {
	if n.Kind != yaml.MappingNode {
		return typeErr(n, key, "a mapping")
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if key == "roles" && !knownRoles[k.Value] {
			return &RepoError{Key: join(key, k.Value), Line: k.Line, Msg: "unknown role (known roles: " + roleList() + ")"}
		}
		elem := reflect.New(v.Type().Elem()).Elem()
		if old := v.MapIndex(reflect.ValueOf(k.Value)); old.IsValid() {
			elem.Set(old)
		}
		if err := decodeNode(val, elem, join(key, k.Value)); err != nil {
			return err
		}
		v.SetMapIndex(reflect.ValueOf(k.Value), elem)
	}
	return nil
}

// check validates values after decoding. root locates keys for line numbers.
func (c *Repo) check(root *yaml.Node) error {
	at := func(key, msg string) error {
		line := 0
		if n := keyNode(root, key); n != nil {
			line = n.Line
		}
		return &RepoError{Key: key, Line: line, Msg: msg}
	}
	if c.Version != RepoVersion {
		return at("version", fmt.Sprintf("unsupported version %d (this issuesmith reads version %d)", c.Version, RepoVersion))
	}
	if strings.TrimSpace(c.Label) == "" {
		return at("label", "must not be empty")
	}
	for _, name := range slices.Sorted(maps.Keys(c.Roles)) {
		if err := checkRole(root, name, c.Roles[name]); err != nil {
			return err
		}
	}
	for i, g := range c.BlockedPaths {
		if _, err := path.Match(strings.TrimSuffix(g, "/**"), ""); err != nil || g == "" {
			return at("blocked_paths", fmt.Sprintf("entry %d (%q) is not a valid glob", i, g))
		}
	}
	if c.CI.FixRounds < 0 || c.CI.FixRounds > MaxFixRounds {
		line := 0
		if n := nestedKeyNode(root, "ci", "fix_rounds"); n != nil {
			line = n.Line
		}
		return &RepoError{Key: "ci.fix_rounds", Line: line, Msg: fmt.Sprintf("must be 0 (off) to %d, got %d", MaxFixRounds, c.CI.FixRounds)}
	}
	for i, ch := range c.Checks {
		if strings.TrimSpace(ch.Run) == "" {
			return at("checks", fmt.Sprintf("entry %d has no run command", i))
		}
	}
	if err := checkSetup(root, c.Setup); err != nil {
		return err
	}
	return checkLimits(root, c.Limits)
}

// checkLimits refuses negative limits, naming the key.
func checkLimits(root *yaml.Node, l RepoLimits) error {
	for _, v := range []struct {
		key string
		neg bool
	}{
		{"run_tokens", l.RunTokens < 0}, {"run_cost_usd", l.RunCostUSD < 0}, {"day_tokens", l.DayTokens < 0},
		{"day_cost_usd", l.DayCostUSD < 0}, {"month_tokens", l.MonthTokens < 0}, {"month_cost_usd", l.MonthCostUSD < 0},
	} {
		if v.neg {
			line := 0
			if n := nestedKeyNode(root, "limits", v.key); n != nil {
				line = n.Line
			}
			return &RepoError{Key: "limits." + v.key, Line: line, Msg: "must not be negative (0 or left out: the server's limit)"}
		}
	}
	return nil
}

// checkRole validates one role's values; errors name the role's key.
func checkRole(root *yaml.Node, name string, r Role) error {
	at := func(key, msg string) error {
		line := 0
		if n := nestedKeyNode(root, "roles", name, key); n != nil {
			line = n.Line
		} else if n := keyNode(root, "roles"); n != nil {
			line = n.Line
		}
		return &RepoError{Key: "roles." + name + "." + key, Line: line, Msg: msg}
	}
	switch {
	case r.MaxSteps < 0:
		return at("max_steps", "must not be negative")
	case r.MaxTokens < 0:
		return at("max_tokens", "must not be negative")
	case r.MaxCostUSD < 0:
		return at("max_cost_usd", "must not be negative")
	case r.MaxCompletionTokens < 0:
		return at("max_completion_tokens", "must not be negative")
	case r.Temperature < 0 || r.Temperature > 2:
		return at("temperature", "must be between 0 and 2")
	case r.Protocol != "" && r.Protocol != llm.ProtocolTools && r.Protocol != llm.ProtocolText:
		return at("protocol", fmt.Sprintf("want %q or %q, got %q", llm.ProtocolTools, llm.ProtocolText, r.Protocol))
	}
	return nil
}

// nestedKeyNode follows a path of mapping keys from root and returns the
// last key's node, or nil.
func nestedKeyNode(root *yaml.Node, path ...string) *yaml.Node {
	var key *yaml.Node
	node := root
	for _, p := range path {
		if node == nil || node.Kind != yaml.MappingNode {
			return nil
		}
		parent := node
		key, node = nil, nil
		for i := 0; i+1 < len(parent.Content); i += 2 {
			if parent.Content[i].Value == p {
				key, node = parent.Content[i], parent.Content[i+1]
			}
		}
		if key == nil {
			return nil
		}
	}
	return key
}

// keyNode returns the key node of a top-level key, or nil.
func keyNode(root *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			return root.Content[i]
		}
	}
	return nil
}

func typeErr(n *yaml.Node, key, want string) error {
	got := n.Value
	if n.Kind != yaml.ScalarNode {
		got = map[yaml.Kind]string{yaml.MappingNode: "a mapping", yaml.SequenceNode: "a list"}[n.Kind]
	} else {
		got = fmt.Sprintf("%q", got)
	}
	return &RepoError{Key: key, Line: n.Line, Msg: fmt.Sprintf("want %s, got %s", want, got)}
}

func describe(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "a whole number"
	case reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "a list of " + strings.TrimPrefix(describe(t.Elem()), "a ") + "s"
	}
	return t.String()
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// yamlErrLine pulls "line N" out of a yaml.v3 syntax error.
func yamlErrLine(err error) int {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return 0
	}
	var line int
	if i := strings.Index(err.Error(), "line "); i >= 0 {
		if _, err := fmt.Sscanf(err.Error()[i:], "line %d", &line); err != nil {
			return 0
		}
	}
	return line
}
