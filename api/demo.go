package api

import (
	"context"
	"fmt"

	"github.com/planehq/hiringsignal/internal/apikey"
	"github.com/planehq/hiringsignal/oltp"
)

// PublicDemoKey is the default shared demo key (flag --demo-key, env HS_DEMO_KEY). It is public
// on purpose, like any shared demo key: it bills nothing, has the read scope only, is limited
// per IP (60 calls per 60 s) and pages at most DemoPageLimit rows. Set --demo-key "" to disable it:
// the demo key installed before is then revoked on every instance.
const PublicDemoKey = "hsk_UQ3HXQW4KJTag2cYCcswW89DNeNA544T19uchl"

// installDemoKey installs Config.DemoKey as the demo key (revoking any other), or revokes every
// demo key when it is "".
func (s *Server) installDemoKey(ctx context.Context) error {
	if s.cfg.DemoKey == "" {
		n, err := oltp.RevokeDemoKeys(ctx, s.pool)
		if err != nil {
			return fmt.Errorf("cannot disable the demo key: %w", err)
		}
		if n > 0 {
			s.log.Info("demo key disabled: the key installed before is revoked")
		}
		s.auth.Flush()
		return nil
	}
	if !apikey.WellFormed(s.cfg.DemoKey) {
		return fmt.Errorf("the demo key (--demo-key, HS_DEMO_KEY) is not an hsk_ key with a valid checksum: use api.PublicDemoKey's format or leave it empty to disable the demo key")
	}
	if _, err := oltp.UpsertDemoKey(ctx, s.pool, apikey.Hash(s.cfg.DemoKey), apikey.Display(s.cfg.DemoKey)); err != nil {
		return fmt.Errorf("cannot install the demo key: %w", err)
	}
	s.auth.Flush()
	return nil
}
