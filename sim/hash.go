package sim

// Hashing: every random choice in the world is a hash of (seed, salt, ids...), so any fact about
// any tick can be computed directly without replaying history.

const golden = 0x9E3779B97F4A7C15

// mix64 is the splitmix64 finalizer; it is a bijection on uint64.
func mix64(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xBF58476D1CE4E5B9
	z ^= z >> 27
	z *= 0x94D049BB133111EB
	z ^= z >> 31
	return z
}

// mix32 is Chris Wellons' lowbias32; it is a bijection on uint32.
func mix32(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x7feb352d
	x ^= x >> 15
	x *= 0x846ca68b
	x ^= x >> 16
	return x
}

func h2(a, b uint64) uint64       { return mix64(a ^ mix64(b+golden)) }
func h3(a, b, c uint64) uint64    { return h2(h2(a, b), c) }
func h4(a, b, c, d uint64) uint64 { return h2(h3(a, b, c), d) }

// hashString is FNV-1a followed by a finalizer.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return mix64(h)
}

// rng is a tiny splitmix64 stream seeded from a hash; it lives on the stack.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += golden
	return mix64(r.s)
}

// intn returns a value in [0,n); n must be > 0.
func (r *rng) intn(n int) int {
	return int(((r.next() >> 32) * uint64(n)) >> 32)
}

// float returns a value in [0,1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

func (r *rng) chance(p float64) bool { return r.float() < p }

// pick returns an index drawn from cumulative-free weights.
func (r *rng) pick(weights []float64) int {
	total := 0.0
	for _, w := range weights {
		total += w
	}
	x := r.float() * total
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

// Salts separate the hash streams of unrelated decisions.
const (
	saltCompany uint64 = iota + 0x51D0
	saltName
	saltSlot
	saltGen
	saltSurge
	saltCross
	saltVariant
	saltFault
	saltID
	saltBlock
	saltExtra
	saltMulti
	saltJobPage
	saltSite
	saltDesc     // a contract req that is fixed-term employment
	saltDescWork // the workplace a description states
	saltDescText // what a description states and its wording
)
