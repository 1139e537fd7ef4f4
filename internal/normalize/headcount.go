package normalize

// headcountBands is the band ladder of the headcount_band filter, smallest first.
var headcountBands = [...]string{"1-10", "11-50", "51-200", "201-500", "501-1000", "1001-5000", "5001+"}

// HeadcountBands returns the headcount band ladder, smallest first. The slice
// is the caller's.
func HeadcountBands() []string {
	return append([]string(nil), headcountBands[:]...)
}

// ValidHeadcountBand reports whether s is exactly one band of the ladder.
func ValidHeadcountBand(s string) bool {
	for _, b := range headcountBands {
		if s == b {
			return true
		}
	}
	return false
}
