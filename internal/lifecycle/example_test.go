package lifecycle_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/planehq/hiringsignal/internal/lifecycle"
)

// part is a Service that says when it starts and stops.
type part struct {
	name     string
	startErr error
}

func (p part) Start(context.Context) error {
	if p.startErr != nil {
		return p.startErr
	}
	fmt.Println("start", p.name)
	return nil
}

func (p part) Stop(context.Context) error {
	fmt.Println("stop", p.name)
	return nil
}

// A Group starts its parts in the order they were added and stops them in reverse: what a part
// needs is started before it and stopped after it. A Loop is a part too: its Stop returns once
// its Run has.
func ExampleGroup() {
	ctx := context.Background()
	var g lifecycle.Group
	g.Add("store", part{name: "store"})
	g.Add("api", part{name: "api"})
	g.Add("crawl", &lifecycle.Loop{Run: func(ctx context.Context) {
		<-ctx.Done()
		fmt.Println("crawl loop returns")
	}})
	if err := g.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	if err := g.Stop(ctx); err != nil {
		fmt.Println(err)
	}
	// Output:
	// start store
	// start api
	// crawl loop returns
	// stop api
	// stop store
}

// When a part cannot start, the parts already started are stopped in reverse and the error names
// the part that failed.
func ExampleGroup_Start() {
	var g lifecycle.Group
	g.Add("store", part{name: "store"})
	g.Add("api", part{name: "api"})
	g.Add("metrics", part{name: "metrics", startErr: errors.New("port 9090 is taken")})
	fmt.Println(g.Start(context.Background()))
	// Output:
	// start store
	// start api
	// stop api
	// stop store
	// cannot start metrics: port 9090 is taken
}
