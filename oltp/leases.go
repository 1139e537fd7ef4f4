package oltp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Leaser is one dispatcher's hold on the deliveries it claimed: a session-level advisory lock
// per delivery (the two-int4 key space is the dispatcher's: the id's bits above 31, then its low
// 31 bits), taken on one connection of its own. A claim writes no row: it locks due rows that
// no other dispatcher holds, reads them again in a new snapshot (a row another dispatcher
// recorded and released meanwhile is let go) and sends nothing twice at once. The lease ends
// when Release is called for the delivery (after its attempt is recorded), or when the
// connection ends: the process died (its rows are due again at once), or it stayed idle for
// longer than the lease (idle_session_timeout: a hung dispatcher loses its rows to the others).
// Rows leased the earlier way (claimed_until in the future) are still left alone.
// A Leaser is safe for concurrent use: its statements take turns on the one connection, and a
// Release that finds the connection busy leaves its unlocks to the call using it (they ride in
// that call's next round trip, or follow it).
type Leaser struct {
	pool  *pgxpool.Pool
	lease time.Duration

	use sync.Mutex // one caller of conn at a time; taken before mu, never while mu is held

	mu       sync.Mutex
	conn     *pgx.Conn
	gen      uint64           // the connection's generation (a new one after a failure)
	held     map[int64]uint64 // claimed and not yet released -> the generation that locked it
	unlock   []int64          // released, their locks (taken on conn) still to end
	lastUsed time.Time
}

// NewLeaser makes a Leaser on pool whose leases end at the latest lease after its connection
// last answered; it connects on first use.
func NewLeaser(pool *pgxpool.Pool, lease time.Duration) *Leaser {
	return &Leaser{pool: pool, lease: max(lease, time.Second), held: map[int64]uint64{}}
}

// connect opens the lease connection when there is none (l.use held).
func (l *Leaser) connect(ctx context.Context) (*pgx.Conn, error) {
	l.mu.Lock()
	conn := l.conn
	l.mu.Unlock()
	if conn != nil {
		return conn, nil
	}
	c, err := l.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot open the delivery lease connection: %w", err)
	}
	_, err = c.Exec(ctx, "SELECT set_config('idle_session_timeout', $1, false)", strconv.FormatInt(l.lease.Milliseconds(), 10))
	// The connection carries the session's locks: it is closed, never returned to the pool.
	conn = c.Hijack()
	if err != nil {
		closeSoon(conn)
		return nil, fmt.Errorf("cannot set the delivery lease connection's idle_session_timeout: %w", err)
	}
	l.mu.Lock()
	l.conn, l.lastUsed = conn, time.Now()
	l.gen++
	l.mu.Unlock()
	return conn, nil
}

// drop closes the lease connection after a failure: every lock it held ends with it (l.use
// held). The deliveries in flight stay in held, so this dispatcher does not claim them again.
func (l *Leaser) drop() {
	l.mu.Lock()
	conn := l.conn
	l.conn, l.unlock = nil, nil
	l.mu.Unlock()
	if conn != nil {
		closeSoon(conn)
	}
}

func closeSoon(c *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = c.Close(ctx)
}

// takeUnlocks empties the unlocks to send.
func (l *Leaser) takeUnlocks() []int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.unlock
	l.unlock = nil
	return u
}

// queueUnlock is the statement ending the locks of ids.
func queueUnlock(b *pgx.Batch, ids []int64) {
	b.Queue(`SELECT count(*) FILTER (WHERE pg_advisory_unlock((id >> 31)::int4, (id & 2147483647)::int4))
		FROM unnest($1::int8[]) AS u(id)`, ids)
}

// done sends the unlocks left and lets the connection go (l.use held): an unlock queued by a
// Release that found the connection busy is sent by whoever holds it last.
func (l *Leaser) done() error {
	var first error
	for {
		u := l.takeUnlocks()
		if len(u) > 0 && l.conn != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			b := &pgx.Batch{}
			queueUnlock(b, u)
			if err := l.conn.SendBatch(ctx, b).Close(); err != nil {
				l.drop()
				if first == nil {
					first = fmt.Errorf("cannot release delivery leases (the lease connection is closed, which ends them): %w", err)
				}
			} else {
				l.mu.Lock()
				l.lastUsed = time.Now()
				l.mu.Unlock()
			}
			cancel()
			continue
		}
		l.use.Unlock()
		l.mu.Lock()
		more := len(l.unlock) > 0
		l.mu.Unlock()
		if !more || !l.use.TryLock() {
			return first
		}
	}
}

// ClaimDue claims at most limit due deliveries (status pending or retrying, next_attempt_at
// passed) of accounts not paused, oldest due first, skipping rows another dispatcher holds and
// those this one holds. Deliveries to a disabled or deleted endpoint are failed at once and
// returned with Gone set (and not held). Deliveries to an email endpoint are parked for its
// digest (ParkForDigest) and not returned. Secrets are opened with box; a delivery whose secrets
// do not open carries SecretErr. Every delivery returned without Gone is held until Release.
// Two round trips (the unlocks of released deliveries ride in the first), both reads.
func (l *Leaser) ClaimDue(ctx context.Context, box SecretSealer, limit int) ([]DueDelivery, error) {
	return l.ClaimDueWithin(ctx, box, limit, Shares{})
}

// ClaimScan bounds a claim's work: it looks for rows within the shares among this many times
// limit of the oldest due rows. Past that many due rows of full endpoints and customers at the
// head of the queue, a claim finds nothing until they are sent at their shares.
const ClaimScan = 16

// Shares keeps one receiver or one customer from taking every delivery in flight: a claim takes
// no delivery of an endpoint with PerEndpoint deliveries in flight (Endpoints, this dispatcher's,
// plus those the claim takes), nor of a customer with PerCustomer (Customers). 0: no cap.
type Shares struct {
	PerEndpoint, PerCustomer int
	Endpoints                map[int64]int  // deliveries in flight per endpoint
	Customers                map[string]int // deliveries in flight per customer
}

// ClaimDueWithin is ClaimDue within s: a receiver that answers slowly (or never, until the
// attempt's timeout) holds at most s.PerEndpoint of the dispatcher's workers, and one customer's
// receivers at most s.PerCustomer, while every other delivery due keeps going. The deliveries of
// a full endpoint or customer are skipped where the due rows are read, so they cannot fill a
// claim and hold back the rows behind them.
func (l *Leaser) ClaimDueWithin(ctx context.Context, box SecretSealer, limit int, s Shares) (_ []DueDelivery, err error) {
	l.use.Lock()
	defer func() {
		if derr := l.done(); err == nil && derr != nil {
			err = derr
		}
	}()
	conn, err := l.connect(ctx)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	own := make([]int64, 0, len(l.held))
	for id := range l.held {
		own = append(own, id)
	}
	unlock := l.unlock
	l.unlock = nil
	l.mu.Unlock()
	b := &pgx.Batch{}
	if len(unlock) > 0 {
		queueUnlock(b, unlock)
	}
	// The lock is taken above the inner LIMIT (a volatile function is never pushed below it),
	// so only rows returned are locked; rows other dispatchers hold fail the try and are skipped.
	// The lease connection must be on the primary: locks taken on a server that turned read-only
	// (an old primary fenced during a switch) would keep no other dispatcher off a delivery.
	var readOnly string
	b.Queue("SELECT current_setting('transaction_read_only')").QueryRow(func(r pgx.Row) error { return r.Scan(&readOnly) })
	var locked []int64
	sh := s.args()
	// The shares are counted over the oldest due rows not of a full endpoint or customer (c: found
	// among the ClaimScan x limit oldest due, so a claim's work stays bounded), each row ranked
	// within its endpoint and its customer after what is in flight there already; the rows
	// within both shares are taken oldest first, and only then locked.
	b.Queue(`SELECT id FROM (
			SELECT id, due FROM (
				SELECT c.id, c.due,
					row_number() OVER (PARTITION BY c.endpoint_id ORDER BY c.due, c.id) + coalesce(be.n, 0) AS ne,
					row_number() OVER (PARTITION BY c.customer_id ORDER BY c.due, c.id) + coalesce(bc.n, 0) AS nc
				FROM (
					SELECT * FROM (
						SELECT d.delivery_id AS id, d.endpoint_id, d.customer_id, d.next_attempt_at AS due
						FROM webhook_deliveries d JOIN accounts a ON a.account_id = d.account_id
						WHERE d.status IN ('pending', 'retrying') AND d.next_attempt_at <= now() AND NOT a.paused
							AND (d.claimed_until IS NULL OR d.claimed_until < now()) AND d.delivery_id <> ALL($2)
						ORDER BY d.next_attempt_at LIMIT $12) scanned
					WHERE endpoint_id <> ALL($4) AND customer_id <> ALL($5)
					ORDER BY due LIMIT $3) c
				LEFT JOIN unnest($6::int8[], $7::int4[]) AS be(endpoint_id, n) ON be.endpoint_id = c.endpoint_id
				LEFT JOIN unnest($8::text[], $9::int4[]) AS bc(customer_id, n) ON bc.customer_id = c.customer_id) ranked
			WHERE ne <= $10 AND nc <= $11
			ORDER BY due, id LIMIT $3) due
		WHERE pg_try_advisory_lock((id >> 31)::int4, (id & 2147483647)::int4)
		LIMIT $1`, limit, own, 4*limit, sh.fullEndpoints, sh.fullCustomers, sh.endpoints, sh.endpointN, sh.customers, sh.customerN,
		sh.perEndpoint, sh.perCustomer, ClaimScan*limit).Query(func(rows pgx.Rows) error {
		var err error
		locked, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		return err
	})
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		l.drop()
		return nil, fmt.Errorf("cannot claim due deliveries: %w", err)
	}
	if readOnly != "off" {
		l.drop() // every lock it took ends with it; the next claim connects to the primary
		return nil, errors.New("cannot claim due deliveries: the lease connection's server is read-only (a primary switch?); reconnecting")
	}
	l.mu.Lock()
	l.lastUsed = time.Now()
	gen := l.gen
	for _, id := range locked {
		l.held[id] = gen
	}
	l.mu.Unlock()
	if len(locked) == 0 {
		return nil, nil
	}
	// A new snapshot, taken after the locks: a row recorded (and released) by another dispatcher
	// after the claim's snapshot is no longer due here.
	out, err := readClaimed(ctx, conn, box, locked)
	if err != nil {
		l.drop() // the locks end with the connection
		l.forget(locked)
		return nil, err
	}
	got := map[int64]bool{}
	var gone, parked []int64
	kept := out[:0]
	for _, d := range out {
		got[d.ID] = true
		switch {
		case d.Gone:
			gone = append(gone, d.ID)
		case d.Kind == KindEmail:
			// An email endpoint's deliveries wait for its daily digest (package push/digest).
			parked = append(parked, d.ID)
			continue
		}
		kept = append(kept, d)
	}
	out = kept
	var letGo []int64
	for _, id := range locked {
		if !got[id] {
			letGo = append(letGo, id)
		}
	}
	if len(gone) > 0 {
		if _, err := l.pool.Exec(ctx, `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, claimed_until = NULL, updated_at = now()
			WHERE delivery_id = ANY($1) AND status IN ('pending', 'retrying')`, gone); err != nil {
			l.release(locked) // nothing claimed: every lock ends
			return nil, fmt.Errorf("cannot fail the deliveries of disabled endpoints: %w", err)
		}
	}
	if len(parked) > 0 {
		if err := ParkForDigest(ctx, l.pool, parked); err != nil {
			l.release(locked)
			return nil, err
		}
	}
	l.release(append(append(letGo, gone...), parked...))
	return out, nil
}

// forget drops ids from held without unlocking them (their connection is gone).
func (l *Leaser) forget(ids []int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, id := range ids {
		delete(l.held, id)
	}
}

// release moves the ids held on the current connection to the unlocks to send.
func (l *Leaser) release(ids []int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, id := range ids {
		if gen, ok := l.held[id]; ok {
			delete(l.held, id)
			if gen == l.gen && l.conn != nil {
				l.unlock = append(l.unlock, id)
			}
		}
	}
}

// Release ends the leases of ids (their attempts are recorded, or abandoned): one round trip
// when the lease connection is free, none when it is busy (the call using it sends the unlocks).
// An id not held is ignored. A failure closes the lease connection, which ends its leases too.
func (l *Leaser) Release(ids []int64) error {
	l.release(ids)
	if !l.use.TryLock() {
		return nil
	}
	return l.done()
}

// KeepAlive answers for the lease connection when it has been idle for a quarter of the lease,
// so the server's idle_session_timeout ends only a hung dispatcher's leases.
func (l *Leaser) KeepAlive(ctx context.Context) (err error) {
	l.use.Lock()
	defer func() {
		if derr := l.done(); err == nil && derr != nil {
			err = derr
		}
	}()
	l.mu.Lock()
	conn, idle := l.conn, time.Since(l.lastUsed)
	l.mu.Unlock()
	if conn == nil || idle < l.lease/4 {
		return nil
	}
	var readOnly string
	if err := conn.QueryRow(ctx, "SELECT current_setting('transaction_read_only')").Scan(&readOnly); err != nil {
		l.drop()
		return fmt.Errorf("cannot keep the delivery lease connection alive (its leases ended): %w", err)
	}
	if readOnly != "off" {
		l.drop()
		return errors.New("the delivery lease connection's server is read-only (a primary switch?): its leases ended; the next claim connects to the primary")
	}
	l.mu.Lock()
	l.lastUsed = time.Now()
	l.mu.Unlock()
	return nil
}

// Held is how many deliveries are claimed and not yet released.
func (l *Leaser) Held() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.held)
}

// Close ends every lease and forgets them. The locks are released by a statement the server
// has answered before the connection closes: closing alone ends them only once the server has
// processed the disconnection, a moment after Close returned, so another dispatcher claiming
// right after a stop could still find them held. The statement has 5 s (a loaded server took over
// the 1 s it had, and the locks then outlived Close).
func (l *Leaser) Close() {
	l.use.Lock()
	defer l.use.Unlock()
	l.mu.Lock()
	conn := l.conn
	l.mu.Unlock()
	if conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, _ = conn.Exec(ctx, "SELECT pg_advisory_unlock_all()") // on failure, closing ends them
		cancel()
	}
	l.drop()
	l.mu.Lock()
	clear(l.held)
	l.mu.Unlock()
}

// readClaimed reads the locked deliveries that are still due, with their endpoints.
func readClaimed(ctx context.Context, conn *pgx.Conn, box SecretSealer, ids []int64) ([]DueDelivery, error) {
	rows, err := conn.Query(ctx, `SELECT d.delivery_id, d.idempotency_key, d.endpoint_id, d.watch_id, d.body, d.attempt_count,
			e.customer_id, e.url, e.secret_sealed, CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret_sealed END,
			e.disabled_at IS NOT NULL OR e.deleted_at IS NOT NULL, e.kind
		FROM webhook_deliveries d JOIN accounts a ON a.account_id = d.account_id JOIN webhook_endpoints e ON e.endpoint_id = d.endpoint_id
		WHERE d.delivery_id = ANY($1) AND d.status IN ('pending', 'retrying') AND d.next_attempt_at <= now() AND NOT a.paused
			AND (d.claimed_until IS NULL OR d.claimed_until < now())
		ORDER BY d.delivery_id`, ids)
	if err != nil {
		return nil, fmt.Errorf("cannot claim due deliveries: %w", err)
	}
	type sealed struct {
		customer  string
		cur, prev []byte
	}
	var out []DueDelivery
	var seal []sealed
	for rows.Next() {
		var d DueDelivery
		var s sealed
		if err := rows.Scan(&d.ID, &d.IdempotencyKey, &d.EndpointID, &d.WatchID, &d.Body, &d.AttemptCount,
			&s.customer, &d.URL, &s.cur, &s.prev, &d.Gone, &d.Kind); err != nil {
			rows.Close()
			return nil, fmt.Errorf("cannot claim due deliveries: %w", err)
		}
		d.CustomerID = s.customer
		out = append(out, d)
		seal = append(seal, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot claim due deliveries: %w", err)
	}
	opened := map[int64][]string{}
	for i := range out {
		d := &out[i]
		if d.Gone || d.Kind == KindEmail {
			continue
		}
		if d.Kind == KindSlack {
			// A Slack endpoint's URL is its secret: sealed, and the url column only its key.
			d.URL = ""
			target, err := box.Open(seal[i].cur, TargetAAD(KindSlack, seal[i].customer, d.EndpointID))
			if err != nil {
				d.SecretErr = fmt.Errorf("cannot open the Slack URL of endpoint %d (wrong --webhook-secret-keys?): %w", d.EndpointID, err)
				continue
			}
			d.URL = string(target)
			continue
		}
		if s, ok := opened[d.EndpointID]; ok {
			d.Secrets = s
			continue
		}
		secrets, err := openSecrets(box, seal[i].customer, d.EndpointID, seal[i].cur, seal[i].prev)
		if err != nil {
			// One endpoint's secret must not stop every other delivery: this one is reported.
			d.SecretErr = err
			continue
		}
		opened[d.EndpointID] = secrets
		d.Secrets = secrets
	}
	return out, nil
}

// shareArgs are a Shares as a claim's parameters.
type shareArgs struct {
	fullEndpoints, endpoints []int64
	fullCustomers, customers []string
	endpointN, customerN     []int32
	perEndpoint, perCustomer int64
}

func (s Shares) args() shareArgs {
	var a shareArgs
	a.perEndpoint, a.fullEndpoints, a.endpoints, a.endpointN = share(s.PerEndpoint, s.Endpoints)
	a.perCustomer, a.fullCustomers, a.customers, a.customerN = share(s.PerCustomer, s.Customers)
	return a
}

// share splits what is in flight against a share of per (0: none): the keys that are full, and
// the others with their counts. The slices are never nil (a claim's array parameters).
func share[K comparable](per int, inFlight map[K]int) (limit int64, full, some []K, n []int32) {
	full, some, n = []K{}, []K{}, []int32{}
	if per <= 0 {
		return math.MaxInt32, full, some, n
	}
	for k, c := range inFlight {
		if c >= per {
			full = append(full, k)
		} else if c > 0 {
			some, n = append(some, k), append(n, int32(c))
		}
	}
	return int64(per), full, some, n
}
