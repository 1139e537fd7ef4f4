package api

// registerBuiltins sets the handlers this package implements (spec 4.1 and the changelog); every
// other route answers 501 until its issue calls Handle.
func (s *Server) registerBuiltins() {
	s.Handle("whoami", s.whoami)
	s.Handle("keys.list", s.keysList)
	s.Handle("keys.issue", s.keysIssue)
	s.Handle("keys.revoke", s.keysRevoke)
	s.Handle("keys.rotate", s.keysRotate)
	s.Handle("usage", s.usageTotals)
	s.Handle("usage.dashboard", s.dashboard)
	s.Handle("account.pause", s.pause)
	s.Handle("account.resume", s.resume)
	s.Handle("pricing", s.pricing)
	s.Handle("compliance", s.compliance)
	s.Handle("changelog", s.changelog)
}
