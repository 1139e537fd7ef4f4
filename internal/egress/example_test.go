package egress_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/planehq/hiringsignal/internal/egress"
)

// The zero Policy is production's: a public https URL is accepted; a private or loopback address
// (in any spelling an IPv4 parser takes), or plain http, is refused with a reason code and a
// sentence saying what to change. The hosts here are IP literals, which are judged without asking
// a resolver.
func ExamplePolicy_CheckURL() {
	var prod egress.Policy
	ctx := context.Background()
	u, err := prod.CheckURL(ctx, "https://93.184.216.34/hooks/hiring")
	fmt.Println("accepted:", u.Host, err)

	for _, raw := range []string{"https://10.1.2.3/hooks", "https://127.1/hooks", "http://93.184.216.34/hooks"} {
		_, err := prod.CheckURL(ctx, raw)
		var r *egress.Refusal
		if errors.As(err, &r) {
			fmt.Printf("%s: %s\n", r.Reason, r.Msg)
		}
	}

	// A dev policy (bin/hiringsignal dev) takes a receiver on this machine.
	dev := egress.Policy{AllowHTTP: true, AllowPrivate: true}
	_, err = dev.CheckURL(ctx, "http://127.0.0.1:8080/hooks")
	fmt.Println("dev accepts loopback:", err == nil)
	// Output:
	// accepted: 93.184.216.34 <nil>
	// private_address: the webhook URL's host 10.1.2.3 is a loopback, private or otherwise non-public address; use a public address or host name
	// private_address: the webhook URL's host 127.1 is a loopback, private or otherwise non-public address; use a public address or host name
	// not_https: the webhook URL must use https://, not http://
	// dev accepts loopback: true
}
