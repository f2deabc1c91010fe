//go:build tools

// Package deps pins the project's chosen dependencies (shared/DESIGN.md) in
// go.mod while the packages that use them are being written. It is never
// built: the "tools" build tag keeps it out of every binary. Delete an import
// here once a real package imports the module.
package deps

import (
	_ "github.com/agnivade/levenshtein"
	_ "github.com/aymanbagabas/go-udiff"
	_ "github.com/bluekeyes/go-gitdiff/gitdiff"
	_ "github.com/bradleyfalzon/ghinstallation/v2"
	_ "github.com/caarlos0/env/v11"
	_ "github.com/getkin/kin-openapi/openapi3"
	_ "github.com/getkin/kin-openapi/openapi3filter"
	_ "github.com/getkin/kin-openapi/routers/gorillamux"
	_ "github.com/go-git/go-git/v5"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/google/go-github/v60/github"
	_ "github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/prometheus/client_golang/prometheus/promhttp"
	_ "github.com/riverqueue/river"
	_ "github.com/riverqueue/river/riverdriver/riverpgxv5"
	_ "github.com/riverqueue/river/riverdriver/riversqlite"
	_ "github.com/riverqueue/river/rivermigrate"
	_ "github.com/robfig/cron/v3"
	_ "github.com/sashabaranov/go-openai"
	_ "github.com/spf13/cobra"
	_ "github.com/stretchr/testify/require"
	_ "github.com/tiktoken-go/tokenizer"
	_ "github.com/tree-sitter/go-tree-sitter"
	_ "github.com/tree-sitter/tree-sitter-c/bindings/go"
	_ "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	_ "github.com/tree-sitter/tree-sitter-go/bindings/go"
	_ "github.com/tree-sitter/tree-sitter-java/bindings/go"
	_ "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	_ "github.com/tree-sitter/tree-sitter-python/bindings/go"
	_ "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	_ "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
	_ "gopkg.in/yaml.v3"
	_ "modernc.org/sqlite"
)
