package workflow_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/workflow"
)

var writeGoldens = flag.Bool("write-payloads", false,
	"write the golden payloads of PayloadVersion that do not exist yet (existing ones are never rewritten)")

func golden(kind string, v int) string {
	return filepath.Join("testdata", "payloads", fmt.Sprintf("%s.v%d.json", kind, v))
}

// decodeAs decodes b into a new value of a's type, as River does.
func decodeAs(t *testing.T, a river.JobArgs, b []byte) (river.JobArgs, error) {
	t.Helper()
	p := reflect.New(reflect.TypeOf(a))
	err := json.Unmarshal(b, p.Interface())
	return p.Elem().Interface().(river.JobArgs), err
}

// TestGoldenPayloadsDecode: every job payload a release wrote (v0: the
// unversioned payloads of the release before versions; v1 on: one set per
// PayloadVersion) decodes to the value it was written from, and this
// release writes exactly its version's golden.
func TestGoldenPayloadsDecode(t *testing.T) {
	for _, want := range payloadCases() {
		t.Run(want.Kind(), func(t *testing.T) {
			for v := 0; v <= workflow.PayloadVersion; v++ {
				b, err := os.ReadFile(golden(want.Kind(), v))
				if errors.Is(err, os.ErrNotExist) && v == workflow.PayloadVersion && *writeGoldens {
					enc, err := json.Marshal(want)
					require.NoError(t, err)
					require.NoError(t, os.WriteFile(golden(want.Kind(), v), append(enc, '\n'), 0o644))
					continue
				}
				require.NoError(t, err, "every kind has a golden of every payload version (-write-payloads writes this release's)")
				got, err := decodeAs(t, want, b)
				require.NoError(t, err, "version %d", v)
				require.Equal(t, want, got, "version %d", v)
				if v == workflow.PayloadVersion {
					enc, err := json.Marshal(want)
					require.NoError(t, err)
					require.JSONEq(t, string(b), string(enc), "this release writes its version's golden")
				}
			}
		})
	}
}

// TestPayloadRoundTrip: a payload decodes to its value and encodes to the
// same bytes again, with the version first; a zero value too.
func TestPayloadRoundTrip(t *testing.T) {
	for _, a := range payloadCases() {
		zero := reflect.Zero(reflect.TypeOf(a)).Interface().(river.JobArgs)
		for _, want := range []river.JobArgs{a, zero} {
			enc, err := json.Marshal(want)
			require.NoError(t, err)
			require.True(t, bytes.HasPrefix(enc, fmt.Appendf(nil, `{"v":%d`, workflow.PayloadVersion)), "%s", enc)
			got, err := decodeAs(t, want, enc)
			require.NoError(t, err)
			require.Equal(t, want, got)
			again, err := json.Marshal(got)
			require.NoError(t, err)
			require.Equal(t, string(enc), string(again))
		}
	}
}

// TestNewerPayloadRefused: a payload of a version above this release's is
// an error naming the kind and the versions, never a half-read job; a
// version that is not a positive number is an error too.
func TestNewerPayloadRefused(t *testing.T) {
	for _, a := range payloadCases() {
		enc, err := json.Marshal(a)
		require.NoError(t, err)
		cur := fmt.Sprintf(`"v":%d`, workflow.PayloadVersion)
		newer := strings.Replace(string(enc), cur, fmt.Sprintf(`"v":%d`, workflow.PayloadVersion+1), 1)
		_, err = decodeAs(t, a, []byte(newer))
		require.ErrorIs(t, err, workflow.ErrNewerPayload)
		require.ErrorContains(t, err, a.Kind())
		require.ErrorContains(t, err, fmt.Sprintf("version %d, but this release reads up to %d",
			workflow.PayloadVersion+1, workflow.PayloadVersion))
		for _, bad := range []string{`"v":0`, `"v":-1`, `"v":"1"`} {
			_, err = decodeAs(t, a, []byte(strings.Replace(string(enc), cur, bad, 1)))
			require.Error(t, err, bad)
			require.NotErrorIs(t, err, workflow.ErrNewerPayload)
			require.ErrorContains(t, err, a.Kind())
		}
	}
}

// TestPayloadFieldsTagged: every field a job payload persists, nested
// ones included, names its JSON key explicitly, so renaming a Go field
// cannot change what a queued job reads.
func TestPayloadFieldsTagged(t *testing.T) {
	for _, a := range payloadCases() {
		checkTags(t, a.Kind(), reflect.TypeOf(a), map[reflect.Type]bool{})
	}
}

func checkTags(t *testing.T, where string, typ reflect.Type, seen map[reflect.Type]bool) {
	t.Helper()
	for typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array || typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Map {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct || typ == reflect.TypeFor[time.Time]() || seen[typ] {
		return
	}
	seen[typ] = true
	names := map[string]string{}
	for f := range typ.Fields() {
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			t.Errorf("%s: field %s.%s is persisted without an explicit json name", where, typ.Name(), f.Name)
			continue
		}
		if name == "v" {
			t.Errorf("%s: field %s.%s uses the payload version's key \"v\"", where, typ.Name(), f.Name)
		}
		if other, dup := names[name]; dup {
			t.Errorf("%s: fields %s and %s of %s share the json name %q", where, other, f.Name, typ.Name(), name)
		}
		names[name] = f.Name
		checkTags(t, where+"."+f.Name, f.Type, seen)
	}
}

// TestEveryJobKindHasGoldens: every job args type of workflow and store
// (a type with a Kind method, found in the source) is among the cases, so
// a new kind cannot skip the goldens and the tag check.
func TestEveryJobKindHasGoldens(t *testing.T) {
	var cased []string
	for _, a := range payloadCases() {
		cased = append(cased, reflect.TypeOf(a).Name())
	}
	var found []string
	for _, dir := range []string{".", "../store"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			require.NoError(t, err)
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Name.Name != "Kind" || fn.Recv == nil || len(fn.Recv.List) != 1 {
					continue
				}
				if id, ok := fn.Recv.List[0].Type.(*ast.Ident); ok {
					found = append(found, id.Name)
				}
			}
		}
	}
	slices.Sort(cased)
	slices.Sort(found)
	require.NotEmpty(t, found)
	require.Equal(t, found, cased, "payloadCases lists every job kind")
}
