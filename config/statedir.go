package config

import (
	"path/filepath"
	"strings"
)

// Default file names inside the state directory.
const (
	stateDBName   = "issuesmith.db"
	stateDataName = "data"
)

// stateDir is where the database and data directory live when
// ISSUESMITH_DATABASE_URL and ISSUESMITH_DATA_DIR are not set, so the
// defaults never depend on the directory a command starts in:
// ISSUESMITH_STATE_DIR; else systemd's $STATE_DIRECTORY (StateDirectory=,
// its first entry); else $XDG_STATE_HOME/issuesmith; else
// $HOME/.local/state/issuesmith.
// It is "" when none of these is set.
func stateDir(vars map[string]string) string {
	if d := vars[EnvPrefix+"STATE_DIR"]; d != "" {
		return d
	}
	if d, _, _ := strings.Cut(vars["STATE_DIRECTORY"], ":"); d != "" {
		return d
	}
	if d := vars["XDG_STATE_HOME"]; filepath.IsAbs(d) {
		return filepath.Join(d, "issuesmith")
	}
	if h := vars["HOME"]; h != "" {
		return filepath.Join(h, ".local", "state", "issuesmith")
	}
	return ""
}

// noStateDir explains an empty database or data setting.
const noStateDir = "not set, and no state directory to default to: set it, or " + EnvPrefix + "STATE_DIR, or HOME"

// stateDefaults fills an unset database URL and data directory (pass nil
// for a config without one) from the state directory; they stay empty
// when there is none (validation names them).
func stateDefaults(vars map[string]string, db, data *string) {
	dir := stateDir(vars)
	if dir == "" {
		return
	}
	if *db == "" {
		*db = filepath.Join(dir, stateDBName)
	}
	if data != nil && *data == "" {
		*data = filepath.Join(dir, stateDataName)
	}
}
