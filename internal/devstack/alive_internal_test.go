package devstack

import (
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAProcessIsAliveUntilItExitsWhole: a running process is alive; once it exited it is not,
// reaped or still a zombie of ours (stopPIDFile waits on this before it says a server stopped).
func TestAProcessIsAliveUntilItExitsWhole(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sleep", "60")
	require.NoError(t, cmd.Start())
	pid := cmd.Process.Pid
	require.True(t, alive(pid), "a running process")
	require.NoError(t, cmd.Process.Kill())
	require.Eventually(t, func() bool { return !alive(pid) }, 10*time.Second, 10*time.Millisecond, "a zombie not yet reaped")
	_ = cmd.Wait()
	require.False(t, alive(pid), "a reaped process")
}
