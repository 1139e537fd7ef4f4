package api

import (
	"io/fs"
	"slices"
	"strings"

	"github.com/swaggest/swgui"
	"github.com/swaggest/swgui/v5/static"
	"github.com/swaggest/swgui/v5emb"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"
)

// The interactive API reference at /docs: Swagger UI 5, embedded in the binary by
// github.com/swaggest/swgui (v5emb: the assets are compiled in, gzipped, and served by the
// binary itself, so the page works with no outside network), rendering /openapi.json. "Try it"
// calls the server the page came from (the document's server URL is "/"), with the key entered
// under Authorize (the document's securitySchemes: X-API-Key or Bearer). Neither the page nor its
// assets need a key, and nothing here is metered or limited, like /openapi.json.

// DocsPath is where the reference is served.
const DocsPath = "/docs"

// docsAssets are the files of the page (the asset parameter's values).
func docsAssets() []string {
	var out []string
	entries, _ := fs.ReadDir(static.FS, ".") // compiled in: cannot fail
	for _, e := range entries {
		if n := strings.TrimSuffix(e.Name(), ".gz"); !strings.HasSuffix(n, ".go") {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// docsRoutes are the page and its assets, as public routes.
func docsRoutes() []*Route {
	return []*Route{
		{Name: "docs", Method: "GET", Path: DocsPath, Summary: "This reference, interactive (Swagger UI rendering /openapi.json; no key needed to read it)",
			Tag: "meta", public: true, media: "text/html", Statuses: []int{200}},
		{Name: "docs_asset", Method: "GET", Path: DocsPath + "/{asset}", Summary: "A script, style sheet or icon of the reference (gzipped when the client accepts it; ETag, 304)",
			Tag: "meta", public: true, media: "application/octet-stream", Statuses: []int{200, 304, 404},
			Params: []Param{{Name: "asset", In: "path", Type: "string", Required: true, Enum: docsAssets()}}},
	}
}

// docsHandler serves the page and its assets through swgui's net/http handler.
func docsHandler() fasthttp.RequestHandler {
	h := fasthttpadaptor.NewFastHTTPHandler(v5emb.NewHandlerWithConfig(swgui.Config{
		Title:       "hiringsignal API reference",
		SwaggerJSON: "/openapi.json",
		BasePath:    DocsPath + "/",
		SettingsUI: map[string]string{
			"defaultModelsExpandDepth": "1",    // the schemas section, listed
			"displayRequestDuration":   "true", // "try it" shows how long the call took
			"persistAuthorization":     "true", // the key entered survives a reload (kept in this browser only)
			"tryItOutEnabled":          "false",
		},
	}))
	assets := docsAssets()
	return func(ctx *fasthttp.RequestCtx) {
		if a, ok := ctx.UserValue("asset").(string); ok && !slices.Contains(assets, a) {
			notFoundHandler(ctx)
			return
		}
		h(ctx)
	}
}
