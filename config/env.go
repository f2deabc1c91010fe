package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"
)

// environment turns "NAME=value" pairs into a map and adds the settings
// of the file named by FileVar that the environment does not set.
func environment(environ []string) (map[string]string, error) {
	vars := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	if path := vars[FileVar]; path != "" {
		fileVars, err := readEnvFile(path)
		if err != nil {
			return nil, err
		}
		for k, v := range fileVars {
			if _, set := vars[k]; !set {
				vars[k] = v
			}
		}
	}
	return vars, nil
}

// readEnvFile reads NAME=value lines; blank lines and # comments are skipped.
func readEnvFile(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", FileVar, err)
	}
	vars := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("%s %s:%d: want NAME=value", FileVar, path, n)
		}
		vars[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"'`)
	}
	return vars, sc.Err()
}

// namedParseErrors rewrites env's parse errors, which name the Go field and
// quote the value, into errors naming the variable and the expected type.
func namedParseErrors(err error, t reflect.Type, prefix string) error {
	var agg env.AggregateError
	if !errors.As(err, &agg) {
		return err
	}
	vars := map[string]envVar{}
	collectVars(t, prefix, vars)
	var out []error
	for _, e := range agg.Errors {
		var pe env.ParseError
		if errors.As(e, &pe) {
			out = append(out, fmt.Errorf("%s: want %s", vars[pe.Name].name, vars[pe.Name].want))
			continue
		}
		out = append(out, e)
	}
	return errors.Join(out...)
}

// envVar is what a parse error says about a field: its variable and the
// form its value must take.
type envVar struct{ name, want string }

// collectVars maps field names to their variables (field names are unique
// across Server and Model).
func collectVars(t reflect.Type, prefix string, into map[string]envVar) {
	for i := range t.NumField() {
		f := t.Field(i)
		if p, ok := f.Tag.Lookup("envPrefix"); ok {
			collectVars(f.Type, prefix+p, into)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("env"), ",")
		into[f.Name] = envVar{name: prefix + name, want: envForm(f)}
	}
}

// envForm describes the value a field takes, for parse errors.
func envForm(f reflect.StructField) string {
	t := f.Type
	if t.Kind() == reflect.Map {
		sep := f.Tag.Get("envKeyValSeparator")
		if sep == "" {
			sep = ":"
		}
		return fmt.Sprintf("a comma-separated list of KEY%sVALUE pairs, each VALUE %s", sep,
			envForm(reflect.StructField{Type: t.Elem()}))
	}
	switch {
	case t == reflect.TypeFor[time.Duration]():
		return `a duration like "90s" or "5m"`
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		return "a whole number"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return "a number"
	case t.Kind() == reflect.String:
		return "text"
	}
	return "a " + t.String()
}
