package ghapp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCanWrite(t *testing.T) {
	t.Parallel()
	srv, c, _ := setup(t, nil)
	for _, tc := range []struct {
		role string
		want bool
	}{
		{"admin", true}, {"maintain", true}, {"write", true},
		{"triage", false}, {"read", false}, {"none", false}, {"", false}, // "" = not a collaborator
		{"deployer:write", true}, {"auditor:read", false}, // custom repository roles
	} {
		user := "u-" + tc.role
		if tc.role != "" {
			srv.SetPermission(owner, repo, user, tc.role)
		}
		got, err := c.CanWrite(t.Context(), owner, repo, user)
		require.NoError(t, err, tc.role)
		assert.Equal(t, tc.want, got, tc.role)
	}
	p, err := c.Permission(t.Context(), owner, repo, "u-maintain")
	require.NoError(t, err)
	assert.Equal(t, "maintain", p, "role_name, which go-github v60 does not decode")
}
