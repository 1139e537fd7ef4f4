package pipeline

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// ReqKey is stored in every ledger row: it must never change. The reference below is the
// original streaming-hash implementation, and one value is pinned outright.
func TestReqKeyIsStable(t *testing.T) {
	t.Parallel()
	ref := func(companyID uint64, titleKey, country string) string {
		h := sha256.New()
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], companyID)
		h.Write(b[:])
		h.Write([]byte(titleKey))
		h.Write([]byte{0})
		h.Write([]byte(country))
		return hex.EncodeToString(h.Sum(nil)[:8])
	}
	long := strings.Repeat("staff platform engineer ", 20) // past the stack buffer
	for _, c := range []struct {
		id             uint64
		title, country string
	}{{0, "", ""}, {1, "engineer", "Germany"}, {CompanyID("acme.example"), "backend engineer", "United States"},
		{1<<48 - 1, "ingénieur logiciel", "France"}, {42, long, long}} {
		require.Equal(t, ref(c.id, c.title, c.country), ReqKey(c.id, c.title, c.country))
	}
	require.Equal(t, "984289ecfc395a66", ReqKey(7, "data scientist", "Japan"))
}
