package api_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
)

func TestStartOnATakenPortNamesThePortAndTheFlag(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	srv := api.New(api.Config{Listen: ln.Addr().String(), Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	err = srv.Start()
	require.ErrorContains(t, err, ln.Addr().String())
	require.ErrorContains(t, err, "--listen")
	require.NoError(t, srv.Stop(context.Background()))
}
