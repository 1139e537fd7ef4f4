package main

import (
	"context"
	"fmt"
	"log/slog"
)

func runSimulate(ctx context.Context, log *slog.Logger, args []string) error {
	return fmt.Errorf("simulate: not built yet (issue 3)")
}

func runCrawl(ctx context.Context, log *slog.Logger, args []string) error {
	return fmt.Errorf("crawl: not built yet (issue 3)")
}

func runBackfill(ctx context.Context, log *slog.Logger, args []string) error {
	return fmt.Errorf("backfill: not built yet (issue 3)")
}
