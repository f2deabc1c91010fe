package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSummaryRefreshSchedule(t *testing.T) {
	t.Parallel()
	s, err := ParseServer(minimal())
	require.NoError(t, err)
	assert.Equal(t, "0 3 * * *", s.SummaryRefresh, "nightly by default")
	for _, spec := range []string{"off", "@every 6h", "@daily", "*/30 * * * *"} {
		s, err := ParseServer(append(minimal(), "ISSUESMITH_SUMMARY_REFRESH="+spec))
		require.NoError(t, err, spec)
		assert.Equal(t, spec, s.SummaryRefresh)
	}
	_, err = ParseServer(append(minimal(), "ISSUESMITH_SUMMARY_REFRESH=0 3 * *"))
	require.ErrorContains(t, err, "ISSUESMITH_SUMMARY_REFRESH")
}
