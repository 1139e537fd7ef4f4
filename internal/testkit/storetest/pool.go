package storetest

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/planehq/hiringsignal/oltp"
)

// The migrated schemas Postgres hands out. Migrating a schema (every migration, each in its own
// transaction) costs Postgres more than most tests do, so a schema is migrated once and kept:
//
//   - It is named p_<digest>_<random>, digest being oltp.MigrationsDigest: a schema of other
//     migrations is never handed out (it is dropped when found free).
//   - A test holds it through a session advisory lock of its own connection (the two-key form,
//     apart from the bigint keys the service locks), so no other test of this run or another
//     takes it meanwhile, and a test whose process dies gives it back with its connection.
//   - Taking it empties it: every table but schema_migrations is truncated, identities restarted,
//     as a freshly migrated schema reads (the migrations insert no rows).
//   - Its catalog fingerprint (tables, columns, triggers and whether they fire, functions,
//     constraints, the migrations applied) is kept as the schema's comment when it is migrated; a
//     test that renamed or dropped a table or disabled a trigger leaves a schema whose
//     fingerprint differs, and that schema is dropped instead of handed out.

// takeSchema returns a migrated, empty schema of the database at u that this test holds until it
// ends.
func takeSchema(ctx context.Context, t testing.TB, u *url.URL) string {
	t.Helper()
	digest, err := oltp.MigrationsDigest()
	if err != nil {
		t.Fatalf("cannot read the migrations: %v", err)
	}
	prefix := "p_" + digest + "_"
	hold, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatalf("cannot connect to %s: %v", u.Path, err)
	}
	// The schema is given back when the test ends (unlocked before the session closes: a closed
	// session's locks go only once its server process has ended, and the next test would not find
	// it free), or with the session if the process dies. Registered before the caller's pool is
	// opened, this cleanup runs after that pool is closed.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = hold.Exec(ctx, "SELECT pg_advisory_unlock_all()")
		hold.Close(ctx)
	})
	rows, err := hold.Query(ctx, `SELECT nspname, coalesce(obj_description(oid, 'pg_namespace'), '') FROM pg_namespace
		WHERE nspname LIKE 'p\_%' ORDER BY nspname`)
	if err != nil {
		t.Fatalf("cannot list the kept schemas: %v", err)
	}
	type kept struct{ name, fingerprint string }
	var all []kept
	for rows.Next() {
		var k kept
		if err := rows.Scan(&k.name, &k.fingerprint); err != nil {
			t.Fatalf("cannot list the kept schemas: %v", err)
		}
		all = append(all, k)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("cannot list the kept schemas: %v", err)
	}
	for _, k := range all {
		if !lockSchema(ctx, t, hold, k.name) {
			continue
		}
		if strings.HasPrefix(k.name, prefix) && k.fingerprint != "" && fingerprint(ctx, t, hold, k.name) == k.fingerprint {
			empty(ctx, t, hold, k.name)
			return k.name
		}
		// Another set of migrations', one a test changed, or one whose migration never finished.
		if _, err := hold.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{k.name}.Sanitize()+" CASCADE"); err != nil {
			t.Fatalf("cannot drop the kept schema %s: %v", k.name, err)
		}
		unlockSchema(ctx, t, hold, k.name)
	}
	name := prefix + suffix()
	if !lockSchema(ctx, t, hold, name) {
		t.Fatalf("cannot lock the new schema %s: another session holds its key", name)
	}
	if _, err := hold.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatalf("cannot create schema %s: %v", name, err)
	}
	pool, err := oltp.Open(ctx, withSchema(u, name))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := oltp.Migrate(ctx, pool, nil); err != nil {
		t.Fatalf("cannot migrate test schema: %v", err)
	}
	if _, err := hold.Exec(ctx, "COMMENT ON SCHEMA "+name+" IS "+quote(fingerprint(ctx, t, hold, name))); err != nil {
		t.Fatalf("cannot record the fingerprint of schema %s: %v", name, err)
	}
	return name
}

// lockSchema takes the advisory lock that holds schema, without waiting; false: another test
// holds it.
func lockSchema(ctx context.Context, t testing.TB, c *pgx.Conn, schema string) bool {
	t.Helper()
	var ok bool
	if err := c.QueryRow(ctx, "SELECT pg_try_advisory_lock(hashtext('storetest-schema'), hashtext($1))", schema).Scan(&ok); err != nil {
		t.Fatalf("cannot lock schema %s: %v", schema, err)
	}
	return ok
}

func unlockSchema(ctx context.Context, t testing.TB, c *pgx.Conn, schema string) {
	t.Helper()
	if _, err := c.Exec(ctx, "SELECT pg_advisory_unlock(hashtext('storetest-schema'), hashtext($1))", schema); err != nil {
		t.Fatalf("cannot unlock schema %s: %v", schema, err)
	}
}

// empty truncates every table of schema but schema_migrations that holds a row and restarts every
// sequence that was used: in one round trip, and touching only what the test before wrote (most
// tests write a few of the tables).
func empty(ctx context.Context, t testing.TB, c *pgx.Conn, schema string) {
	t.Helper()
	if _, err := c.Exec(ctx, "SELECT set_config('search_path', $1, false)", schema); err != nil {
		t.Fatalf("cannot set the search path to schema %s: %v", schema, err)
	}
	// The tables are truncated at once, so the triggers that keep one table beside another on a
	// truncate (outcome_votes beside outcome_labels) have nothing to do: they are not fired
	// (session_replication_role).
	if _, err := c.Exec(ctx, `SET session_replication_role = replica;
DO $$
DECLARE
	r record;
	written text[] := '{}';
	any_row boolean;
BEGIN
	FOR r IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'schema_migrations' LOOP
		EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I.%I)', current_schema(), r.tablename) INTO any_row;
		IF any_row THEN
			written := written || format('%I.%I', current_schema(), r.tablename);
		END IF;
	END LOOP;
	IF cardinality(written) > 0 THEN
		EXECUTE 'TRUNCATE ' || array_to_string(written, ', ') || ' CASCADE';
	END IF;
	FOR r IN SELECT sequencename FROM pg_sequences WHERE schemaname = current_schema() AND last_value IS NOT NULL LOOP
		EXECUTE format('ALTER SEQUENCE %I.%I RESTART', current_schema(), r.sequencename);
	END LOOP;
END $$;
RESET session_replication_role`); err != nil {
		t.Fatalf("cannot empty schema %s: %v", schema, err)
	}
}

// fingerprint digests what a test could change of schema's structure: its relations, their
// columns (name, type, not null), triggers and whether they fire, functions and their bodies,
// constraints, and the migrations recorded as applied.
func fingerprint(ctx context.Context, t testing.TB, c *pgx.Conn, schema string) string {
	t.Helper()
	var fp string
	err := c.QueryRow(ctx, `SELECT md5(concat_ws('|',
		(SELECT string_agg(relname || ':' || relkind::text, ',' ORDER BY relname) FROM pg_class WHERE relnamespace = $1::text::regnamespace),
		(SELECT string_agg(c.relname || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod) || ':' || a.attnotnull::text, ','
			ORDER BY c.relname, a.attnum)
			FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
			WHERE c.relnamespace = $1::text::regnamespace AND a.attnum > 0 AND NOT a.attisdropped),
		(SELECT string_agg(c.relname || '.' || g.tgname || ':' || g.tgenabled::text, ',' ORDER BY c.relname, g.tgname)
			FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid WHERE c.relnamespace = $1::text::regnamespace),
		(SELECT string_agg(proname || ':' || md5(prosrc), ',' ORDER BY proname, md5(prosrc)) FROM pg_proc WHERE pronamespace = $1::text::regnamespace),
		(SELECT string_agg(conname, ',' ORDER BY conname) FROM pg_constraint WHERE connamespace = $1::text::regnamespace)))`,
		schema).Scan(&fp)
	if err != nil {
		t.Fatalf("cannot read the catalog of schema %s: %v", schema, err)
	}
	var applied string
	if err := c.QueryRow(ctx, "SELECT coalesce(string_agg(version::text, ',' ORDER BY version), '') FROM "+
		pgx.Identifier{schema, "schema_migrations"}.Sanitize()).Scan(&applied); err != nil {
		// No schema_migrations: a migration that never ran; the fingerprint says so.
		return fp + ":unmigrated"
	}
	return fp + ":" + applied
}

// quote is s as a SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
