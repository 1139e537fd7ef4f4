// make mcp-check: the TypeScript SDK's client (an MCP implementation independent of the Go SDK
// the server runs on) connects to MCP_URL with MCP_KEY, lists the tools and calls two of them.
// Exits non-zero, saying why, when anything is not as the server promises.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = process.env.MCP_URL;
const key = process.env.MCP_KEY;
if (!url || !key) {
  console.error("mcp-check: set MCP_URL (http://host:port/mcp) and MCP_KEY (an hsk_ key)");
  process.exit(2);
}
const fail = (msg) => {
  console.error("mcp-check: FAIL: " + msg);
  process.exit(1);
};

const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${key}` } },
});
const client = new Client({ name: "hiringsignal-mcp-check", version: "1.0.0" });
await client.connect(transport);
console.log(`connected: ${client.getServerVersion()?.name} ${client.getServerVersion()?.version}`);

const { tools } = await client.listTools();
console.log(`tools/list: ${tools.length} tools: ${tools.map((t) => t.name).join(", ")}`);
for (const want of ["find_hiring_companies", "company_hiring_brief", "change_feed", "create_watch"]) {
  if (!tools.some((t) => t.name === want)) fail(`tools/list lacks ${want}`);
}
for (const t of tools) {
  if (t.inputSchema?.type !== "object") fail(`${t.name}: input schema is not an object`);
  if (!/Cost:/.test(t.description ?? "")) fail(`${t.name}: description does not state its cost`);
}

// A call that needs no crawled data (the caller's watches), then a read of the read model.
const watches = await client.callTool({ name: "list_watches", arguments: {} });
if (watches.isError) fail("list_watches answered isError: " + JSON.stringify(watches.content));
if (!Array.isArray(watches.structuredContent?.watches)) fail("list_watches: structuredContent.watches is not a list");
console.log(`tools/call list_watches: ${watches.structuredContent.watches.length} watches`);

const bad = await client.callTool({ name: "find_hiring_companies", arguments: { limit: 0 } });
if (!bad.isError || bad.structuredContent?.reason !== "invalid_arguments") fail("a bad limit is not a tool error: " + JSON.stringify(bad));
console.log(`tools/call find_hiring_companies limit=0: isError ${bad.structuredContent.reason}: ${bad.content[0].text}`);

await client.close();
console.log("mcp-check: ok");
