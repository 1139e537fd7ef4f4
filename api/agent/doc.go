// Package agent is the agent interface of the API: a Model Context Protocol server at /mcp
// (Streamable HTTP, stateless, JSON responses, on the official Go SDK behind fasthttp's net/http
// adaptor) whose curated, task-level tools each run one registered /v1 route in-process. A plain
// tools/call is answered without the SDK's per-request machinery, as the SDK answers it
// (direct.go); everything else is the SDK's.
//
// It owns the tool table (names, descriptions, which route each runs and which of the route's
// parameters it exposes), the translation of tool arguments into the route's query, path or
// body, and of the route's answer into a tool result (structuredContent plus a text copy, concise
// or full, bounded in size; limits and bad arguments as isError results). Input schemas are the
// routes' own (api.ParamSchema, api.FieldSchema) made compact (Compact, a tool's Notes), so a
// tool cannot drift from /openapi.json while tools/list stays within MaxToolListBytes.
//
// It must not admit, limit or meter anything itself: every tools/call goes through
// api.Server.Execute, the chain an HTTP request to the route takes, with the caller's key
// (recorded under the mcp channel), and the /mcp endpoint is admitted by api.Server.Mount (calls
// in flight per address and per key, the key, the bounded body read, and the protocol window of
// what runs no route: the agent only tells it which request is a tools/call, read with the SDK's
// own decoder); the route's call reuses that admission, so a tool call reads its key and counts
// in flight once. It hands Execute's answer back (Release) once the result is read out of it. What it guards itself is the protocol's shape (guard.go): one JSON-RPC message per
// request (a batch is refused before the SDK sees it) and answers of at most MaxAnswerBytes, always
// JSON. It holds no handler of its own and reads no store.
package agent
