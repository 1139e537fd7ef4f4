package pipeline

// WithEagerFacts makes c's cycles read every posting's facts in the normalize stage, not only
// those of the postings the deduper takes.
func WithEagerFacts(c *Crawler) { c.eagerFacts = true }
