package oltp

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// AuthAckChannel carries "<token> <instance_id>": an instance dropped its cache for a change.
const AuthAckChannel = "hs_auth_ack"

// InstanceTTLSeconds: an instance that has not heartbeaten for this long is not waited for.
const InstanceTTLSeconds = 15

// HeartbeatInstance records that instance id is alive and caching.
func HeartbeatInstance(ctx context.Context, pool *pgxpool.Pool, id string) error {
	_, err := pool.Exec(ctx, `INSERT INTO api_instances (instance_id, heartbeat) VALUES ($1, now())
		ON CONFLICT (instance_id) DO UPDATE SET heartbeat = now()`, id)
	if err != nil {
		return fmt.Errorf("cannot record the instance heartbeat: %w", err)
	}
	return nil
}

// AckAuthChange tells every instance that instance dropped what the change of token touched
// (a NOTIFY on AuthAckChannel).
func AckAuthChange(ctx context.Context, pool *pgxpool.Pool, token, instance string) error {
	if _, err := pool.Exec(ctx, "SELECT pg_notify($1, $2)", AuthAckChannel, token+" "+instance); err != nil {
		return fmt.Errorf("cannot acknowledge a key/account change: %w", err)
	}
	return nil
}

// DeregisterInstance removes instance id (clean shutdown).
func DeregisterInstance(ctx context.Context, pool *pgxpool.Pool, id string) error {
	_, err := pool.Exec(ctx, "DELETE FROM api_instances WHERE instance_id = $1", id)
	return err
}

// LiveInstances lists the instances that heartbeated within InstanceTTLSeconds.
func LiveInstances(ctx context.Context, pool *pgxpool.Pool) ([]string, error) {
	rows, err := pool.Query(ctx, "SELECT instance_id FROM api_instances WHERE heartbeat > now() - make_interval(secs => $1)", InstanceTTLSeconds)
	if err != nil {
		return nil, fmt.Errorf("cannot list API instances: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
