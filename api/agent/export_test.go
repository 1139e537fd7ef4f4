package agent

// RegisterSDKOnly mounts /mcp with the SDK answering every request, tools/call included: the
// reference the direct calls are compared with.
func RegisterSDKOnly(d Deps) { register(d, false) }

// DirectServed is how many tools/call requests were answered directly, by every server of the
// test binary.
func DirectServed() int64 { return directServed.Load() }
