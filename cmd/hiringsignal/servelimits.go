package main

import (
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/flagenv"
)

// limitFlags are the API's bounds on what callers make one instance hold: store deadlines,
// calls and connections per address, header and body timeouts, header size, body bytes in flight, the /mcp
// protocol requests of one key per minute.
type limitFlags struct {
	storeTimeout      *time.Duration
	ipMaxInFlight     *int
	maxConns          *int
	maxConnsPerIP     *int
	readHeaderTimeout *time.Duration
	readBodyTimeout   *time.Duration
	bodyBytesInFlight *int
	maxHeaderBytes    *int
	protocolPerMinute *int
}

func addLimitFlags(fs *flagenv.Set) *limitFlags {
	return &limitFlags{
		storeTimeout:      fs.Duration("store-timeout", api.DefaultStoreTimeout, "deadline of the store calls of one API call; past it the call answers 503"),
		ipMaxInFlight:     fs.Int("ip-max-inflight", api.DefaultIPMaxInFlight, "API calls of one client address in flight on this instance before 429 key_throttled (-1: no cap)"),
		maxConns:          fs.Int("max-conns", api.DefaultMaxConns, "connections served at once; more are refused with 503"),
		maxConnsPerIP:     fs.Int("max-conns-per-ip", api.DefaultMaxConnsPerIP, "connections of one peer address; more are refused with 429 (-1: no cap). The proxies of --trusted-proxies are not capped: their clients' calls are, per client address"),
		readHeaderTimeout: fs.Duration("read-header-timeout", api.DefaultReadHeaderTimeout, "time to receive a request's header"),
		readBodyTimeout:   fs.Duration("read-body-timeout", api.DefaultReadBodyTimeout, "time to receive a request's body once its header is in (408 past it)"),
		bodyBytesInFlight: fs.Int("max-body-bytes-inflight", api.DefaultBodyBytesInFlight, "request body bytes held by calls in flight on this instance; past it 503"),
		maxHeaderBytes:    fs.Int("max-header-bytes", api.DefaultMaxHeaderBytes, "bytes of a request's line and headers (its query string included); past it 431"),
		protocolPerMinute: fs.Int("mcp-protocol-per-minute", api.DefaultProtocolPerMinute, "/mcp requests that run no route (initialize, tools/list, ping, a tool call refused before it runs) per key per 60 s, the demo key's per client address; past it 429 rate_limited (-1: no limit). Tool calls that run a route count in the key's own limit"),
	}
}
