// Command deliverybench measures the webhook dispatcher: --deliveries pending deliveries written
// straight into a throwaway Postgres schema, sent by the real dispatch.Dispatcher to a loopback
// receiver until every one is delivered, recorded and billed, beside a plain Go HTTP client
// POSTing the same bodies to the same receiver in the same run (see bench/deliverykit). It
// prints Markdown for bench/README.md. It is never run by `make test`.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/planehq/hiringsignal/bench/deliverykit"
	"github.com/planehq/hiringsignal/internal/flagenv"
)

func main() {
	var o deliverykit.Options
	flag.StringVar(&o.PostgresURL, "postgres-url", flagenv.Env("HS_POSTGRES_URL", "postgres://postgres@127.0.0.1:55432/hiringsignal"), "Postgres server (a throwaway schema is created and dropped; env HS_POSTGRES_URL)")
	flag.IntVar(&o.Deliveries, "deliveries", 20_000, "pending deliveries written for each dispatcher round")
	flag.IntVar(&o.Endpoints, "endpoints", 4, "webhook endpoints (each with a watch) the deliveries are spread over")
	flag.IntVar(&o.Workers, "workers", 64, "deliveries in flight at once, for the dispatcher (--delivery-workers) and the baseline alike")
	flag.IntVar(&o.Rounds, "rounds", 2, "alternating rounds of baseline and dispatcher")
	flag.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile of the first dispatcher round to this file")
	debug := flag.Bool("debug", false, "log the dispatcher's claims and records (debug level) to stderr")
	flag.Parse()
	if *debug {
		o.Log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if err := deliverykit.Run(context.Background(), o, deliverykit.Dispatcher()); err != nil {
		fmt.Fprintln(os.Stderr, "deliverybench:", err)
		os.Exit(1)
	}
}
