package ats

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPageAhead: a chain whose pages differ in one number is stepped on by that number's step,
// wherever the number is; anything else (a cursor, a parameter that appears only from the second
// page, a number going down, two numbers changing) gives no guess. A job page's numeric id is
// stepped too: the reader of a chain guesses only once two steps were the same, and stops at the
// first guess its pages disprove.
func TestPageAhead(t *testing.T) {
	t.Parallel()
	cases := []struct {
		page, next string
		k          int
		want       string
	}{
		{"https://b.example/jobs?page=1", "https://b.example/jobs?page=2", 1, "https://b.example/jobs?page=3"},
		{"https://b.example/jobs?page=1", "https://b.example/jobs?page=2", 3, "https://b.example/jobs?page=5"},
		{"https://b.example/jobs?page=9", "https://b.example/jobs?page=10", 1, "https://b.example/jobs?page=11"},
		{"https://b.example/jobs?page=19", "https://b.example/jobs?page=20", 2, "https://b.example/jobs?page=22"},
		{"https://b.example/jobs?page=11&x=1", "https://b.example/jobs?page=12&x=1", 1, "https://b.example/jobs?page=13&x=1"},
		{"https://api.lever.co/v0/postings/a?mode=json&skip=100&limit=100", "https://api.lever.co/v0/postings/a?mode=json&skip=200&limit=100", 2,
			"https://api.lever.co/v0/postings/a?mode=json&skip=400&limit=100"},
		{"https://a.wd1.myworkdayjobs.com/wday/cxs/a/ext/jobs#offset=20&total=95", "https://a.wd1.myworkdayjobs.com/wday/cxs/a/ext/jobs#offset=40&total=95", 1,
			"https://a.wd1.myworkdayjobs.com/wday/cxs/a/ext/jobs#offset=60&total=95"},
		{"https://b.example/page/3", "https://b.example/page/4", 1, "https://b.example/page/5"},
		// no guess
		{"https://api.lever.co/v0/postings/a?mode=json", "https://api.lever.co/v0/postings/a?mode=json&skip=100&limit=100", 1, ""},
		{"https://feed.example/v1/feed?region=na", "https://feed.example/v1/feed?region=na&cursor=b2Zmc2V0OjUw", 1, ""},
		{"https://feed.example/v1/feed?cursor=abc1", "https://feed.example/v1/feed?cursor=abd1", 1, ""},
		{"https://www.hirelane.example/job/hl-100482", "https://www.hirelane.example/job/hl-100917", 1, "https://www.hirelane.example/job/hl-101352"},
		{"https://b.example/jobs?page=2", "https://b.example/jobs?page=1", 1, ""},
		{"https://b.example/jobs?page=1", "https://b.example/jobs?page=2", 0, ""},
		{"https://b.example/jobs?page=1&s=3", "https://b.example/jobs?page=2&s=4", 1, ""},
		{"https://b.example/jobs?page=01", "https://b.example/jobs?page=02", 1, ""},
	}
	for _, c := range cases {
		require.Equal(t, c.want, PageAhead(c.page, c.next, c.k), "%s → %s, %d on", c.page, c.next, c.k)
	}
}
