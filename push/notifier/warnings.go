package notifier

import (
	"context"
	"time"

	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/admit"
)

// warnKey is one allowance warning of an account: its period, limit and threshold. The store
// raises each once (a UNIQUE key); the notifier remembers the ones it raised or found raised so
// that an account past a threshold does not cost a statement in every batch.
type warnKey struct {
	account   int64
	period    time.Time
	limit     int64
	threshold int
}

// warnings raises, in batch b, the delivered-changes warnings (80% and 100% of the plan's
// allowance, admit.Warnings) that the accounts of ids reached with this batch's admissions
// (states: their figures after the batch's checks), each delivered to every live endpoint of its
// customer. It returns every warning the accounts are past, raised now or before, and how many it
// raised now.
func (n *Notifier) warnings(ctx context.Context, b *oltp.NotifierBatch, ids []int64, customers map[int64]string,
	states map[int64]oltp.AccountDeliveryState, now time.Time) ([]warnKey, int, error) {
	var (
		todo []oltp.NewAccountEvent
		keys []warnKey
	)
	n.warnMu.Lock()
	for _, id := range ids {
		st, ok := states[id]
		if !ok {
			continue
		}
		for _, w := range admit.Warnings(customers[id], id, st, now) {
			k := warnKey{account: id, period: w.PeriodStart, limit: w.Limit, threshold: w.Threshold}
			if !n.warned[k] {
				todo = append(todo, w)
				keys = append(keys, k)
			}
		}
	}
	n.warnMu.Unlock()
	if len(todo) == 0 {
		return nil, 0, nil
	}
	raised, err := b.RaiseAccountEvents(ctx, todo, admit.AccountEventBody)
	if err != nil {
		return nil, 0, err
	}
	for _, e := range raised {
		n.cfg.Log.Info("allowance warning raised", "account_id", e.AccountID, "allowance", e.Allowance, "threshold", e.Threshold,
			"limit", e.Limit, "used", e.Used, "overflow", e.Overflow)
	}
	return keys, len(raised), nil
}

// markWarned remembers warnings raised (or found raised) by a committed batch, which raised n of
// them. The memory is bounded: it is dropped whole past maxWarned entries (the store still raises
// each once).
func (n *Notifier) markWarned(keys []warnKey, raised int) {
	n.m.warnings.Add(raised)
	if len(keys) == 0 {
		return
	}
	n.warnMu.Lock()
	defer n.warnMu.Unlock()
	if n.warned == nil || len(n.warned) > maxWarned {
		n.warned = map[warnKey]bool{}
	}
	for _, k := range keys {
		n.warned[k] = true
	}
}

// maxWarned bounds the warnings a notifier remembers.
const maxWarned = 100_000
