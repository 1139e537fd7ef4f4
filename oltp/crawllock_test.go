package oltp_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

func TestCrawlCommitLockIsHeldByOneCrawlerAtATime(t *testing.T) {
	t.Parallel()
	pool := storetest.Postgres(t, "oltp")
	ctx := context.Background()
	ledger := "ledger_" + t.Name()
	lock := oltp.CrawlCommitLock(pool, ledger)
	unlock, err := lock(ctx)
	require.NoError(t, err)

	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err = lock(short)
	require.Error(t, err, "a second holder must wait while the first holds it")

	other, err := oltp.CrawlCommitLock(pool, ledger+"_other")(ctx)
	require.NoError(t, err, "another ledger's lock is independent")
	other()

	unlock()
	again, err := lock(ctx)
	require.NoError(t, err)
	again()
}
