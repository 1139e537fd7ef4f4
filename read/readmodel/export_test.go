package readmodel

import "time"

// SetObservedFrom sets c's ObservedFrom: a test's copy of a company observed from another time.
func (c *Company) SetObservedFrom(t time.Time) { c.observedFrom = unixSeconds(t) }
