package store_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
)

// A database URL's password never reaches an error: not when the URL does
// not parse as a pgx config, and not when nothing answers at its address.
func TestOpenErrorsHideThePassword(t *testing.T) {
	t.Parallel()
	// A port that was free a moment ago: nothing answers there.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())

	const pw = "s3cretPassw0rd"
	for name, dsn := range map[string]string{
		"unparsable option": "postgres://bot:" + pw + "@" + addr + "/db?sslmode=sometimes",
		"nothing answers":   "postgres://bot:" + pw + "@" + addr + "/db?connect_timeout=2",
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			s, err := store.Open(ctx, dsn)
			if s != nil {
				s.Close()
			}
			require.Error(t, err)
			require.NotContains(t, err.Error(), pw)
			require.Contains(t, err.Error(), "open postgres postgres://bot:[redacted]@"+addr, "the address stays, to say which database")
		})
	}
}
