// Package proctest holds what tests that start processes (the real binary, a crash helper)
// share: that a started process dies with the test binary. It must not import the project's
// packages.
package proctest

import "os/exec"

// DieWithParent makes cmd killed when the test binary that starts it dies (a timeout's panic, a
// canceled CI job), so that no process outlives its test holding ports and databases. The test's
// own Cleanup still stops it in the ordinary case. A no-op off Linux.
func DieWithParent(cmd *exec.Cmd) { dieWithParent(cmd) }
