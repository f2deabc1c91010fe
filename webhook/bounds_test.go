package webhook

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A signed delivery with an id over MaxDeliveryID bytes is refused (400)
// and nothing is recorded or handed on.
func TestDeliveryBounds(t *testing.T) {
	t.Parallel()
	r := newRig(t, 0)
	m := payload(t, "issues.labeled", r.gh.Installation())
	d := r.newDelivery("issues", m)
	d.id = strings.Repeat("x", 10_000)
	code, body := r.send(d)
	require.Equal(t, http.StatusBadRequest, code, body)
	require.Contains(t, body, "X-GitHub-Delivery over 128 bytes")
	require.Empty(t, r.disp.got())
	require.False(t, r.disp.has(IDKey(d.id)), "the refused delivery was not recorded")

}
