package devstack

import (
	"fmt"
	"strings"
)

// State is what a probe found on a store's port.
type State int

const (
	// Stopped: nothing listens on the port and this run directory's server is not running.
	Stopped State = iota
	// Running: this run directory's server answers on the port (its data directory is ours).
	Running
	// Foreign: a server of the same kind answers on the port, but its data lives elsewhere
	// (another checkout's, a system one); Owner says where.
	Foreign
	// Stranger: something that does not answer as this kind of server holds a port.
	Stranger
	// Elsewhere: this run directory's server runs, but not on the configured port.
	Elsewhere
)

// StoreStatus is one store's probe: what answers on its port and whose it is.
type StoreStatus struct {
	Store   string // "postgres" or "clickhouse"
	State   State
	Port    int    // the port concerned (for Stranger, the one held)
	Flag    string // the flag that changes Port, with its environment variable
	DataDir string // this run directory's data directory for the store
	Owner   string // Foreign: the data directory of the server answering; Elsewhere: where ours runs
	// OwnerRunDir is the Foreign server's run dir when its data says (Postgres data kept under
	// /var/tmp/hiringsignal names its run dir).
	OwnerRunDir string
	PID         int // Running/Elsewhere, when known
}

// name is how messages spell the store.
func (s StoreStatus) name() string {
	if s.Store == "postgres" {
		return "Postgres"
	}
	return "ClickHouse"
}

// owner is the Foreign server's data directory, with its run dir when known.
func (s StoreStatus) owner() string {
	if s.OwnerRunDir != "" {
		return s.Owner + ", run dir " + s.OwnerRunDir
	}
	return s.Owner
}

func (s StoreStatus) String() string {
	switch s.State {
	case Running:
		return fmt.Sprintf("%-10s ours, running on 127.0.0.1:%d (data %s)", s.Store, s.Port, s.DataDir)
	case Foreign:
		return fmt.Sprintf("%-10s NOT OURS: port %d answers as another %s (data %s); ours (data %s) cannot start there: pass %s", s.Store, s.Port, s.name(), s.owner(), s.DataDir, s.Flag)
	case Stranger:
		return fmt.Sprintf("%-10s NOT OURS: port %d is held by something that does not answer as %s; pass %s", s.Store, s.Port, s.name(), s.Flag)
	case Elsewhere:
		return fmt.Sprintf("%-10s ours, running but %s (data %s)", s.Store, s.Owner, s.DataDir)
	}
	return fmt.Sprintf("%-10s not running (data %s, port %d free)", s.Store, s.DataDir, s.Port)
}

// refusal is the error Up returns for a port it must not use, or nil.
func (s StoreStatus) refusal() error {
	switch s.State {
	case Foreign:
		return fmt.Errorf("cannot start this checkout's %s on port %d: another %s answers there, with its data in %s (ours is %s); it is not ours, so it is neither reused nor stopped: pass %s to use a free port (or point HS_%s_%s at that server to use it on purpose)",
			s.name(), s.Port, s.name(), s.owner(), s.DataDir, s.Flag, strings.ToUpper(s.Store), map[string]string{"postgres": "URL", "clickhouse": "ADDR"}[s.Store])
	case Stranger:
		return fmt.Errorf("cannot start this checkout's %s: port %d is held by something that does not answer as %s: pass %s to use a free port", s.name(), s.Port, s.name(), s.Flag)
	case Elsewhere:
		return fmt.Errorf("cannot start this checkout's %s on port %d: it already runs (data %s) but %s: run `hiringsignal stores down` first (it stops ours wherever it listens)", s.name(), s.Port, s.DataDir, s.Owner)
	}
	return nil
}
