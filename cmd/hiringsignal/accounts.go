package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"

	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/oltp"
)

func runAccounts(ctx context.Context, log *slog.Logger, args []string) error {
	if len(args) == 0 || args[0] != "create" {
		return fmt.Errorf("say `accounts create --plan free|trial|starter|growth --email x@example.com`")
	}
	fs := flagenv.New("accounts create", "Create a customer, an account on a plan and its first API key; prints one JSON object with the key (shown only here).")
	f := addStoreFlags(fs)
	plan := fs.String("plan", "free", "plan: free, trial, starter, growth or enterprise")
	email := fs.String("email", "", "contact email of the customer")
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	s, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := oltp.Migrate(ctx, s.pg, nil); err != nil {
		return err
	}
	acct, err := oltp.CreateAccount(ctx, s.pg, *plan, *email)
	if err != nil {
		return err
	}
	log.Info("account created", "customer_id", acct.CustomerID, "account_id", acct.AccountID, "tier", acct.Tier)
	enc := json.NewEncoder(os.Stdout)
	return enc.Encode(acct)
}
