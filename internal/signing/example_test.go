package signing_test

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/planehq/hiringsignal/internal/signing"
)

// A delivery carries the message id, the timestamp and the signature in three headers; a
// receiver checks them with any stock Standard Webhooks library (here the reference one) against
// the raw body, and a body changed on the way does not verify.
func ExampleSign() {
	secret := signing.NewSecret() // shown to the customer once, when the endpoint is registered
	body := []byte(`{"event":"opened","company":"Acme","raw_title":"Staff Engineer"}`)
	now := time.Now()
	sig, err := signing.Sign([]string{secret}, "evt_42_7", now, body)
	if err != nil {
		fmt.Println(err)
		return
	}
	h := http.Header{}
	h.Set(signing.HeaderID, "evt_42_7")
	h.Set(signing.HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	h.Set(signing.HeaderSignature, sig)

	// The receiver's side.
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("verifies:", wh.Verify(body, h) == nil)
	fmt.Println("changed body verifies:", wh.Verify([]byte(`{"event":"closed","company":"Acme","raw_title":"Staff Engineer"}`), h) == nil)
	// Output:
	// verifies: true
	// changed body verifies: false
}

// During a secret rotation's overlap a delivery is signed under both secrets, the new one first:
// a receiver holding either verifies it, one holding another secret does not.
func ExampleSign_rotation() {
	oldSecret, newSecret := signing.NewSecret(), signing.NewSecret()
	body := []byte(`{"event":"closed","company":"Acme"}`)
	now := time.Now()
	sig, err := signing.Sign([]string{newSecret, oldSecret}, "evt_42_8", now, body)
	if err != nil {
		fmt.Println(err)
		return
	}
	h := http.Header{}
	h.Set(signing.HeaderID, "evt_42_8")
	h.Set(signing.HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	h.Set(signing.HeaderSignature, sig)
	for _, c := range []struct{ name, secret string }{{"old", oldSecret}, {"new", newSecret}, {"another", signing.NewSecret()}} {
		wh, err := standardwebhooks.NewWebhook(c.secret)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s secret verifies: %t\n", c.name, wh.Verify(body, h) == nil)
	}
	// Output:
	// old secret verifies: true
	// new secret verifies: true
	// another secret verifies: false
}
