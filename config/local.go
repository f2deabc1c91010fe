package config

import (
	"errors"
	"fmt"
	"os"
	"reflect"

	"github.com/caarlos0/env/v11"
)

// Local is the configuration of the commands that run on a checkout
// (`bot solve`, `bot summarize`, ...): the model settings and the database
// of `bot serve`, with the same variables and defaults, and none of the
// App's settings. A model is optional here: Model.Configured says whether
// one is named, and Model.LLM names ISSUESMITH_MODEL_NAME when none is.
type Local struct {
	// DatabaseURL is ISSUESMITH_DATABASE_URL (a SQLite path or postgres://),
	// by default <state dir>/issuesmith.db as for `bot serve`.
	DatabaseURL string `env:"DATABASE_URL"`
	// Model holds the ISSUESMITH_MODEL_* settings.
	Model Model `envPrefix:"MODEL_"`
}

// DB returns DatabaseURL, or an error naming the variable when it is unset
// and there is no state directory to default to.
func (l *Local) DB() (string, error) {
	if l.DatabaseURL == "" {
		return "", errors.New(EnvPrefix + "DATABASE_URL: " + noStateDir)
	}
	return l.DatabaseURL, nil
}

// LoadLocal reads the local commands' configuration from the process
// environment and the file named by ISSUESMITH_CONFIG_FILE, applies
// defaults and validates it.
func LoadLocal() (*Local, error) { return ParseLocal(os.Environ()) }

// ParseLocal is LoadLocal over the given "NAME=value" environment. Every
// model setting that is set is checked as `bot serve` checks it, except
// that ISSUESMITH_MODEL_NAME may be missing.
func ParseLocal(environ []string) (*Local, error) {
	vars, err := environment(environ)
	if err != nil {
		return nil, err
	}
	var l Local
	if err := env.ParseWithOptions(&l, env.Options{Prefix: EnvPrefix, Environment: vars}); err != nil {
		return nil, fmt.Errorf("model config: %w", namedParseErrors(err, reflect.TypeFor[Local](), EnvPrefix))
	}
	errs := l.Model.validate(false)
	stateDefaults(vars, &l.DatabaseURL, nil) // "" without a state directory: DB reports it
	if len(errs) > 0 {
		return nil, fmt.Errorf("model config: %w", errors.Join(errs...))
	}
	return &l, nil
}

// LoadModel reads only the model settings (ISSUESMITH_MODEL_*, also from
// ISSUESMITH_CONFIG_FILE), as LoadLocal does.
func LoadModel() (*Model, error) { return ParseModel(os.Environ()) }

// ParseModel is LoadModel over the given "NAME=value" environment.
func ParseModel(environ []string) (*Model, error) {
	l, err := ParseLocal(environ)
	if err != nil {
		return nil, err
	}
	return &l.Model, nil
}
