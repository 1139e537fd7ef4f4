package analytics

import "time"

// SetQuorumTimeout sets one quorum write attempt's wait and returns what restores it.
func SetQuorumTimeout(d time.Duration) (restore func()) {
	old := quorumTimeout.Swap(int64(d))
	return func() { quorumTimeout.Store(old) }
}
