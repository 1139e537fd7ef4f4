package companies

import (
	"strconv"
	"strings"

	"github.com/planehq/hiringsignal/read/readmodel"
)

// openReqsCursor is the position of a row in open-reqs order (newest first_seen first, then
// req_key): "<first_seen unix>:<req_key>".
type openReqsCursor struct {
	firstSeen int64
	key       string
}

func (k openReqsCursor) String() string { return strconv.FormatInt(k.firstSeen, 10) + ":" + k.key }

func parseOpenReqsCursor(s string) (openReqsCursor, bool) {
	fs, key, ok := strings.Cut(s, ":")
	n, err := strconv.ParseInt(fs, 10, 64)
	if !ok || err != nil || key == "" || len(key) > 64 {
		return openReqsCursor{}, false
	}
	return openReqsCursor{firstSeen: n, key: key}, true
}

// after reports whether r comes after the cursor in open-reqs order.
func (k openReqsCursor) after(r *readmodel.Req) bool {
	return r.FirstSeen < k.firstSeen || r.FirstSeen == k.firstSeen && r.Key > k.key
}
