package egress

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestControlRefusesLoopbackAtDialTime(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	// Not parallel: it sets the proxy variables (t.Setenv), which are the process's.
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

// The dial-time refusal is shown to the customer in the delivery log, and a receiver's DNS can be
// pointed at a guessed internal name after its URL was saved: whatever the resolver answers, the
// dialer refuses in one sentence, naming no address ("no such host" against "refusing to
// connect" there would be an oracle of which internal names exist).
func TestDialTimeRefusalsDoNotMapInternalDNS(t *testing.T) {
	t.Parallel()
	answers := map[string]func(context.Context, string, string) ([]netip.Addr, error){
		CausePrivateAddress: fakeDNS(map[string][]string{"hooks.example.com": {"10.0.0.5"}}),
		"mixed":             fakeDNS(map[string][]string{"hooks.example.com": {"93.184.216.34", "127.0.0.1"}}),
		CauseNoAddress:      fakeDNS(map[string][]string{}),
		CauseLookupFailed: func(context.Context, string, string) ([]netip.Addr, error) {
			return nil, &net.DNSError{Err: "server misbehaving", Name: "hooks.example.com", IsTemporary: true}
		},
	}
	var first *Refusal
	for name, lookup := range answers {
		dial := Policy{LookupNetIP: lookup}.dialContext(&net.Dialer{Timeout: time.Second, Control: func(string, string, syscall.RawConn) error {
			t.Fatalf("%s: an address was dialled", name)
			return nil
		}})
		_, err := dial(context.Background(), "tcp", "hooks.example.com:443")
		var r *Refusal
		require.True(t, errors.As(err, &r), "%s: %v", name, err)
		require.Equal(t, ReasonNoPublicAddress, r.Reason, name)
		require.NotContains(t, r.Msg, "10.0.0.5", name)
		require.NotContains(t, r.Msg, "127.0.0.1", name)
		if first == nil {
			first = r
		}
		require.Equal(t, first.Msg, r.Msg, "%s is answered like the others", name)
	}
}

// Outside dev the dialer dials exactly the addresses it judged, in the resolver's order: no
// second lookup a rebinding DNS could answer differently.
func TestTheDialerDialsTheAddressesItJudged(t *testing.T) {
	t.Parallel()
	lookups := 0
	p := Policy{LookupNetIP: func(ctx context.Context, network, host string) ([]netip.Addr, error) {
		lookups++
		require.Equal(t, "hooks.example.com", host)
		return fakeDNS(map[string][]string{host: {"93.184.216.34", "2606:4700::1111"}})(ctx, network, host)
	}}
	var dialled []string
	refused := errors.New("not dialling in a test")
	dial := p.dialContext(&net.Dialer{Timeout: time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		dialled = append(dialled, address)
		return refused
	}})
	_, err := dial(context.Background(), "tcp", "hooks.example.com:443")
	require.ErrorIs(t, err, refused)
	require.Equal(t, []string{"93.184.216.34:443", "[2606:4700::1111]:443"}, dialled)
	require.Equal(t, 1, lookups)
}

func TestDialContextIsTheTransportsCheck(t *testing.T) {
	t.Parallel()
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
	_, err = Policy{}.DialContext(time.Second)(context.Background(), "tcp", ln.Addr().String())
	var r *Refusal
	require.ErrorAs(t, err, &r)
	require.Equal(t, ReasonPrivateAddress, r.Reason)
	_, err = Policy{LookupNetIP: fakeDNS(map[string][]string{"jobs.example.com": {"127.0.0.1"}})}.DialContext(time.Second)(context.Background(), "tcp", "jobs.example.com:443")
	require.ErrorAs(t, err, &r)
	require.Equal(t, ReasonNoPublicAddress, r.Reason)
	c, err := Policy{AllowPrivate: true}.DialContext(time.Second)(context.Background(), "tcp", ln.Addr().String())
	require.NoError(t, err)
	c.Close()
}
