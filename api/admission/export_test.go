package admission

import "time"

// SetHoldTTL sets how long cc's spend holds count after each Hold (tests of a lapsed hold).
func (cc *Caps) SetHoldTTL(ttl time.Duration) { cc.ttl = ttl }
