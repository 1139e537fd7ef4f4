package connector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/connector"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/internal/testkit/readmodeltest"
	"github.com/planehq/hiringsignal/read/snapshot"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// setup crawls a 500-company world once and serves the connector routes over its snapshot; list is
// 10,000 companies: every known one by domain and name, the rest unknown domains (misses, so
// coverage requests are written: inserted on the first run, counted again on later ones).
func setup(b *testing.B) (*apitest.Server, string, []map[string]string) {
	w := readmodeltest.Crawl(b, readmodeltest.Config{Seed: 3, Companies: 500, First: 100, Last: 100, Step: 1})
	snaps := snapshot.New(snapshot.Config{ClickHouse: w.CH, Log: apitest.Quiet(), Poll: time.Hour})
	_, err := snaps.Refresh(context.Background(), true)
	require.NoError(b, err)
	srv := apitest.StartServer(b, apitest.Options{DB: "benchconnector", Register: func(s *api.Server, pool *pgxpool.Pool) {
		connector.Register(s, connector.Deps{Snapshots: snaps, Pool: pool, Log: apitest.Quiet()})
	}})
	list := make([]map[string]string, 0, connector.ImportMax)
	for _, co := range w.Companies {
		list = append(list, map[string]string{"domain": co.Domain, "name": co.Name})
	}
	for i := len(list); i < connector.ImportMax; i++ {
		list = append(list, map[string]string{"domain": fmt.Sprintf("unknown-%d.example", i), "name": fmt.Sprintf("Unknown %d GmbH", i)})
	}
	return srv, srv.Account(b, "growth").Key, list
}

func BenchmarkMigrationImport10k(b *testing.B) {
	srv, key, list := setup(b)
	body, err := json.Marshal(map[string]any{"companies": list})
	require.NoError(b, err)
	var csv strings.Builder
	csv.WriteString("domain,name\n")
	for _, it := range list {
		fmt.Fprintf(&csv, "%s,%q\n", it["domain"], it["name"])
	}
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			r := srv.Do(b, "POST", "/v1/migration-import", key, body)
			require.Equal(b, 200, r.Status, string(r.Body[:min(len(r.Body), 300)]))
		}
	})
	b.Run("csv", func(b *testing.B) {
		for b.Loop() {
			r := srv.Do(b, "POST", "/v1/migration-import", key, csv.String(), "Content-Type", "text/csv")
			require.Equal(b, 200, r.Status)
		}
	})
	// Baseline: decoding the same JSON body and encoding an answer of the same size, no HTTP, no store.
	b.Run("baseline-json-decode-encode", func(b *testing.B) {
		r := srv.Do(b, "POST", "/v1/migration-import", key, body)
		for b.Loop() {
			var in struct {
				Companies []map[string]string `json:"companies"`
			}
			require.NoError(b, json.Unmarshal(body, &in))
			var out map[string]any
			require.NoError(b, json.Unmarshal(r.Body, &out))
			_, err := json.Marshal(out)
			require.NoError(b, err)
		}
	})
}
