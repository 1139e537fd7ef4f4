package oltp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// CrawlChain is a source's chain of pages read in part and carried to later windows
// (crawl_chains, migration 0037): where it stands (the next page, the two before it, the origin
// its first page was read at), the pages and postings read so far, the window it started in and
// the worker that recorded its last part.
type CrawlChain struct {
	SourceKey   string    `json:"source_key"`
	StartedTick int       `json:"started_tick"`
	StartedAt   time.Time `json:"started_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	Worker      string    `json:"worker"`
	Pages       int       `json:"pages"`
	Postings    int       `json:"postings"`
	Next        string    `json:"next_url"`
	Prev        string    `json:"prev_url,omitempty"`
	Before      string    `json:"before_url,omitempty"`
	Home        string    `json:"home_url,omitempty"`
}

// ChainPart is one part of a chain a worker read: FirstPage is where the chain stood when the
// part's read began (0: the chain's first page), Pages and Postings what it read, Sightings its
// encoded sightings, Tick the window it was read in.
type ChainPart struct {
	FirstPage int
	Pages     int
	Postings  int
	Tick      int
	Sightings []byte
}

// ErrChainMoved is SaveChainPart's answer when the chain no longer stands where the part's read
// began, or the worker no longer holds the source's lease: another worker went on with it (a
// lease that lapsed). The part is not recorded; the worker drops its read of the source.
var ErrChainMoved = errors.New("the chain moved on without this worker (its lease lapsed and another worker went on)")

// SaveChainPart records a part of source key's chain read by owner in window part.Tick, and where
// the chain stands after it (at: its Pages are the chain's after the part), in one transaction:
// only while owner holds the source's lease and the chain stands where the part's read began
// (no chain recorded when part.FirstPage is 0; one at part.FirstPage pages otherwise), so a part
// read twice (a lapsed lease, a worker killed before its part was recorded) is recorded once, and
// a worker that lost its lease records nothing (ErrChainMoved).
func SaveChainPart(ctx context.Context, pool *pgxpool.Pool, owner, key string, part ChainPart, at CrawlChain) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var held bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM crawl_sources WHERE source_key = $1 AND lease_owner = $2 FOR UPDATE)`,
			key, owner).Scan(&held); err != nil {
			return fmt.Errorf("cannot record a part of the chain of %s: %w", key, err)
		}
		if !held {
			return fmt.Errorf("cannot record a part of the chain of %s: %w", key, ErrChainMoved)
		}
		sql := `INSERT INTO crawl_chains (source_key, started_tick, worker, pages, postings, next_url, prev_url, before_url, home_url)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (source_key) DO NOTHING`
		args := []any{key, part.Tick, owner, at.Pages, part.Postings, at.Next, at.Prev, at.Before, at.Home}
		if part.FirstPage != 0 {
			sql = `UPDATE crawl_chains SET worker = $2, pages = $3, postings = postings + $4, next_url = $5, prev_url = $6, before_url = $7,
				home_url = $8, updated_at = now()
				WHERE source_key = $1 AND pages = $9`
			args = []any{key, owner, at.Pages, part.Postings, at.Next, at.Prev, at.Before, at.Home, part.FirstPage}
		}
		tag, err := tx.Exec(ctx, sql, args...)
		if err != nil {
			return fmt.Errorf("cannot record a part of the chain of %s: %w", key, err)
		}
		if tag.RowsAffected() != 1 {
			return fmt.Errorf("cannot record the part of the chain of %s from page %d: %w", key, part.FirstPage, ErrChainMoved)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO crawl_chain_parts (source_key, first_page, pages, tick, sightings) VALUES ($1, $2, $3, $4, $5)`,
			key, part.FirstPage, part.Pages, part.Tick, part.Sightings); err != nil {
			return fmt.Errorf("cannot record a part of the chain of %s: %w", key, err)
		}
		return nil
	})
}

const chainCols = `source_key, started_tick, started_at, updated_at, worker, pages, postings, next_url, prev_url, before_url, home_url`

func scanChain(row pgx.Row) (CrawlChain, error) {
	var c CrawlChain
	err := row.Scan(&c.SourceKey, &c.StartedTick, &c.StartedAt, &c.UpdatedAt, &c.Worker, &c.Pages, &c.Postings, &c.Next, &c.Prev, &c.Before, &c.Home)
	return c, err
}

// GetChain is source key's carried chain, nil when it has none.
func GetChain(ctx context.Context, pool *pgxpool.Pool, key string) (*CrawlChain, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := scanChain(pool.QueryRow(ctx, "SELECT "+chainCols+" FROM crawl_chains WHERE source_key = $1", key))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the carried chain of %s: %w", key, err)
	}
	return &c, nil
}

// ChainParts is the parts of source key's chain that begin before page before, in the chain's
// order: each one's first page, pages, window and sightings (Postings is not kept per part: 0).
func ChainParts(ctx context.Context, pool *pgxpool.Pool, key string, before int) ([]ChainPart, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	rows, err := pool.Query(ctx, `SELECT first_page, pages, tick, sightings FROM crawl_chain_parts WHERE source_key = $1 AND first_page < $2
		ORDER BY first_page`, key, before)
	if err != nil {
		return nil, fmt.Errorf("cannot read the parts of the chain of %s: %w", key, err)
	}
	parts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ChainPart, error) {
		var p ChainPart
		err := row.Scan(&p.FirstPage, &p.Pages, &p.Tick, &p.Sightings)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("cannot read the parts of the chain of %s: %w", key, err)
	}
	return parts, nil
}

// DropChain deletes source key's carried chain and its parts: the next read starts at the
// chain's first page.
func DropChain(ctx context.Context, pool *pgxpool.Pool, key string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := pool.Exec(ctx, `DELETE FROM crawl_chains WHERE source_key = $1`, key); err != nil {
		return fmt.Errorf("cannot drop the carried chain of %s: %w", key, err)
	}
	return nil
}

// CarriedChains counts the chains carried to a later window (crawl_chains), for operators.
func CarriedChains(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM crawl_chains`).Scan(&n); err != nil {
		return 0, fmt.Errorf("cannot count the carried chains: %w", err)
	}
	return n, nil
}

// endChainSQL deletes source $2's carried chain once the read that ends it is stored: only when
// that read ($1 tick, $3 worker, $4 read_at) is the window's stored one, so a worker whose lease
// lapsed and whose read lost to another's leaves the chain to the read that won.
const endChainSQL = `DELETE FROM crawl_chains c WHERE c.source_key = $2
	AND EXISTS (SELECT 1 FROM crawl_reads r WHERE r.tick = $1 AND r.source_key = $2 AND r.worker = $3 AND r.read_at = $4)`
