package egress

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestControlRefusesLoopbackAtDialTime(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	ctx := context.Background()

	d := &net.Dialer{Control: Policy{}.Control}
	_, err = d.DialContext(ctx, "tcp", ln.Addr().String())
	var r *Refusal
	require.True(t, errors.As(err, &r), "dial error %v is not a *Refusal", err)
	require.Equal(t, ReasonPrivateAddress, r.Reason)

	// A name resolving to loopback is refused on the address actually dialled.
	_, port, err := net.SplitHostPort(ln.Addr().String())
	require.NoError(t, err)
	_, err = d.DialContext(ctx, "tcp", net.JoinHostPort("localhost", port))
	require.True(t, errors.As(err, &r), "dial error %v is not a *Refusal", err)

	dev := &net.Dialer{Control: Policy{AllowPrivate: true}.Control}
	c, err := dev.DialContext(ctx, "tcp", ln.Addr().String())
	require.NoError(t, err)
	c.Close()
}

func TestControlAddresses(t *testing.T) {
	f := func(address, want string) {
		t.Helper()
		require.Equal(t, want, reasonOf(t, Policy{}.Control("tcp", address, nil)), address)
		require.NoError(t, Policy{AllowPrivate: true}.Control("tcp", address, nil))
	}
	f("93.184.216.34:443", "")
	f("[2606:4700::1111]:443", "")
	f("127.0.0.1:443", "private_address")
	f("[::ffff:127.0.0.1]:443", "private_address")
	f("[::1]:443", "private_address")
	f("[fe80::1%eth0]:443", "private_address")
	f("10.1.2.3:80", "private_address")
	f("/tmp/socket", "invalid_host")
}

func TestTransportRefusesLoopback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:1") // never consulted
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")

	prod := &http.Client{Transport: Policy{}.Transport(5 * time.Second)}
	_, err := prod.Get(srv.URL)
	var r *Refusal
	require.True(t, errors.As(err, &r), "error %v is not a *Refusal", err)

	dev := &http.Client{Transport: Policy{AllowPrivate: true}.Transport(5 * time.Second)}
	resp, err := dev.Get(srv.URL)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
}
