package coder

import (
	"errors"
	"os/exec"
	"time"

	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// The Go policy of the coder's sandboxed commands (go build, go vet, check
// commands, language servers) is internal/sandbox's one policy: its
// Options.Sandbox carries the bot's Caches, so modules are downloaded by
// the bot and read-only inside, and the build cache is this repository's.

// plain is a command outside the sandbox in its own process group (the
// context's end kills the group).
func plainCommand(cmd *exec.Cmd) *sandbox.Cmd {
	setProcessGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	return sandbox.Plain(cmd)
}

// limitNote is the line a check's output gets when a sandbox limit stopped
// it, or "".
func limitNote(err error) string {
	var le *sandbox.LimitError
	if errors.As(err, &le) {
		return "\n" + le.Error()
	}
	return ""
}

// WithEgress is o with its sandbox's egress set for a repository asking
// for hosts (and plain-HTTP methods besides GET and HEAD): the hosts that
// o.Sandbox.Egress.Hosts — the server's ceiling — also allows. An empty
// result leaves the checks without network.
func (o Options) WithEgress(hosts, methods []string) Options {
	var ceiling []string
	var base sandbox.Egress
	if o.Sandbox.Egress != nil {
		base = *o.Sandbox.Egress
		ceiling = base.Hosts
	}
	allowed := sandbox.AllowHosts(ceiling, hosts)
	if len(allowed) == 0 {
		o.Sandbox.Egress = nil
		return o
	}
	base.Hosts, base.Methods = allowed, methods
	o.Sandbox.Egress = &base
	return o
}

// sandboxFor is the sandbox policy of commands on t: the options' policy
// with the caches of t's repository (Workspace.Repository: the bot's own
// record, never the tree's git configuration) unless the caller named one.
func (c *Coder) sandboxFor(t *tree) sandbox.Policy {
	p := c.opts.Sandbox
	if p.Repo == "" {
		p.Repo = t.repo
	}
	if p.TrustedModules == nil {
		p.TrustedModules = t.modules
	}
	return p
}
