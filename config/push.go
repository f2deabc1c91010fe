package config

import (
	"fmt"
	"regexp"
)

// Where the bot pushes its branches (Server.Push).
const (
	// PushOrigin pushes to the repository itself.
	PushOrigin = "origin"
	// PushFork pushes to Server.ForkOwner's fork of the repository and
	// opens the pull request from there.
	PushFork = "fork"
)

// githubLogin matches a GitHub user or organization name.
var githubLogin = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$`)

// ForkPush reports whether the bot pushes to forks.
func (s *Server) ForkPush() bool { return s.Push == PushFork }

// validatePush checks Push and ForkOwner.
func (s *Server) validatePush() []error {
	var errs []error
	switch s.Push {
	case PushOrigin:
	case PushFork:
		switch {
		case s.ForkOwner == "":
			errs = append(errs, fmt.Errorf("%sFORK_OWNER: required with %sPUSH=fork: the user or organization that owns the forks (the App must be installed there)", EnvPrefix, EnvPrefix))
		case !githubLogin.MatchString(s.ForkOwner):
			errs = append(errs, fmt.Errorf("%sFORK_OWNER: must be a GitHub user or organization name", EnvPrefix))
		}
	default:
		errs = append(errs, fmt.Errorf("%sPUSH: must be origin or fork", EnvPrefix))
	}
	return errs
}
