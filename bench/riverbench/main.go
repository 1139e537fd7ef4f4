// Command riverbench measures River (github.com/riverqueue/river, a Postgres job queue with
// retries) as the delivery scheduler, beside the dispatcher and the plain-client baseline in the
// same run (bench/deliverykit): each due delivery is one River job, enqueued in one
// InsertManyFast; a River worker reads the delivery and its endpoint, opens the secret, signs,
// POSTs and records the attempt with oltp.RecordAttempts (delivered, attempt row, billed once),
// as the dispatcher does per batch. River runs on the same throwaway schema (its own migrations).
//
// It is its own module (go.mod here) so River is not a dependency of the service; run it from
// this directory: go run . --rounds 2
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/planehq/hiringsignal/bench/deliverykit"
	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/internal/signing"
	"github.com/planehq/hiringsignal/oltp"
)

func main() {
	var o deliverykit.Options
	flag.StringVar(&o.PostgresURL, "postgres-url", flagenv.Env("HS_POSTGRES_URL", "postgres://postgres@127.0.0.1:55432/hiringsignal"), "Postgres server (a throwaway schema is created and dropped; env HS_POSTGRES_URL)")
	flag.IntVar(&o.Deliveries, "deliveries", 20_000, "pending deliveries written for each sender round")
	flag.IntVar(&o.Endpoints, "endpoints", 4, "webhook endpoints (each with a watch) the deliveries are spread over")
	flag.IntVar(&o.Workers, "workers", 64, "deliveries in flight at once (River MaxWorkers, --delivery-workers, baseline workers)")
	flag.IntVar(&o.Rounds, "rounds", 2, "alternating rounds of baseline, dispatcher and River")
	flag.Parse()
	if err := deliverykit.Run(context.Background(), o, deliverykit.Dispatcher(), riverSender()); err != nil {
		fmt.Fprintln(os.Stderr, "riverbench:", err)
		os.Exit(1)
	}
}

// deliverArgs is one delivery's River job.
type deliverArgs struct {
	DeliveryID int64 `json:"delivery_id"`
}

func (deliverArgs) Kind() string { return "webhook_delivery" }

type deliverWorker struct {
	river.WorkerDefaults[deliverArgs]
	env       deliverykit.Env
	client    *http.Client
	delivered *atomic.Int64
}

func (w *deliverWorker) Work(ctx context.Context, job *river.Job[deliverArgs]) error {
	var key, url, customer string
	var endpoint int64
	var body, sealed []byte
	var attempts int
	if err := w.env.Pool.QueryRow(ctx, `SELECT d.idempotency_key, d.endpoint_id, d.body, d.attempt_count, e.customer_id, e.url, e.secret_sealed
		FROM webhook_deliveries d JOIN webhook_endpoints e USING (endpoint_id) WHERE d.delivery_id = $1`, job.Args.DeliveryID).
		Scan(&key, &endpoint, &body, &attempts, &customer, &url, &sealed); err != nil {
		return err
	}
	secret, err := w.env.Box.Open(sealed, oltp.EndpointAAD(customer, endpoint))
	if err != nil {
		return err
	}
	secrets := []string{string(secret)}
	now := time.Now()
	sig, err := signing.Sign(secrets, key, now, body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(signing.HeaderPlaneSignature, signing.PlaneSignature(secrets, body))
	req.Header.Set("X-Plane-Idempotency-Key", key)
	req.Header.Set(signing.HeaderID, key)
	req.Header.Set(signing.HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	req.Header.Set(signing.HeaderSignature, sig)
	resp, err := w.client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return errors.New(resp.Status)
	}
	if _, err := oltp.RecordAttempts(ctx, w.env.Pool, []oltp.AttemptResult{{DeliveryID: job.Args.DeliveryID, EndpointID: endpoint,
		Outcome: oltp.OutcomeDelivered, StartedAt: now, ResponseStatus: resp.StatusCode, ResponseMS: int(time.Since(now).Milliseconds())}}, 72*time.Hour); err != nil {
		return err
	}
	w.delivered.Add(1)
	return nil
}

func riverSender() deliverykit.Sender {
	return deliverykit.Sender{Name: "River (one job per delivery)", Run: func(ctx context.Context, env deliverykit.Env, n int) (deliverykit.Result, error) {
		driver := riverpgxv5.New(env.Pool)
		m, err := rivermigrate.New(driver, nil)
		if err != nil {
			return deliverykit.Result{}, err
		}
		if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
			return deliverykit.Result{}, fmt.Errorf("cannot migrate River: %w", err)
		}
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost, t.MaxConnsPerHost = env.Workers, env.Workers
		var delivered atomic.Int64
		workers := river.NewWorkers()
		river.AddWorker(workers, &deliverWorker{env: env, client: &http.Client{Transport: t, Timeout: 15 * time.Second}, delivered: &delivered})
		client, err := river.NewClient(driver, &river.Config{
			Queues:        map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: env.Workers}},
			Workers:       workers,
			FetchCooldown: 5 * time.Millisecond, // River's floor is 1 ms; its default 100 ms caps a queue at 10 fetches/s
			Logger:        env.Log,
		})
		if err != nil {
			return deliverykit.Result{}, err
		}
		rows, err := env.Pool.Query(ctx, "SELECT delivery_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY delivery_id")
		if err != nil {
			return deliverykit.Result{}, err
		}
		var params []river.InsertManyParams
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return deliverykit.Result{}, err
			}
			params = append(params, river.InsertManyParams{Args: deliverArgs{DeliveryID: id}})
		}
		if err := rows.Err(); err != nil {
			return deliverykit.Result{}, err
		}
		// The jobs are enqueued before the clock starts, as the notifier would in its own
		// transactions; the dispatcher's rows were written before its clock too.
		if _, err := client.InsertManyFast(ctx, params); err != nil {
			return deliverykit.Result{}, err
		}
		start := time.Now()
		if err := client.Start(ctx); err != nil {
			return deliverykit.Result{}, err
		}
		for delivered.Load() < int64(n) {
			time.Sleep(10 * time.Millisecond)
		}
		took := time.Since(start)
		if err := client.Stop(ctx); err != nil {
			return deliverykit.Result{}, err
		}
		env.Finished()
		return deliverykit.Latencies(ctx, env.Admin, start, took)
	}}
}
