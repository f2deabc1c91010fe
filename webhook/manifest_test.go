package webhook

import (
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// TestManifestMatchesHandler keeps app.yml honest: it subscribes to exactly
// the events the handler routes (less the installation events every App
// gets) and asks for the least permissions.
func TestManifestMatchesHandler(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../app.yml")
	require.NoError(t, err)
	var m struct {
		Name           string            `yaml:"name"`
		URL            string            `yaml:"url"`
		HookAttributes map[string]any    `yaml:"hook_attributes"`
		Permissions    map[string]string `yaml:"default_permissions"`
		Events         []string          `yaml:"default_events"`
	}
	require.NoError(t, yaml.Unmarshal(b, &m))
	assert.NotEmpty(t, m.Name)
	assert.NotEmpty(t, m.URL)
	assert.Contains(t, m.HookAttributes["url"], "/webhook")

	h, err := New(Options{Secret: secret, Intake: &recorder{}, BotLogin: "x[bot]"})
	require.NoError(t, err)
	var routed []string
	for ev := range h.routes {
		if ev != "installation" && ev != "installation_repositories" {
			routed = append(routed, ev)
		}
	}
	slices.Sort(routed)
	events := slices.Clone(m.Events)
	slices.Sort(events)
	assert.Equal(t, routed, events)
	assert.Equal(t, map[string]string{"contents": "write", "issues": "write", "pull_requests": "write",
		"metadata": "read", "checks": "read", "actions": "read"}, m.Permissions)
}
