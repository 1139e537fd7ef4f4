package sim

import (
	"bytes"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// referenceFlavors write each flavor the way the feeds wrote descriptions before they were
// cached: the reference writers (appendHTML, appendPlain, appendItems, headingOf), then the
// feed's escaping of the whole.
var referenceFlavors = [numFlavors]func(d *descDoc, b []byte) []byte{
	flGreenhouse: func(d *descDoc, b []byte) []byte {
		var h []byte
		h = append(h, `<div class="content-intro">`...)
		h = d.appendHTML(h, 1<<pAbout, 0)
		h = append(h, `</div>`...)
		h = d.appendHTML(h, allParts&^(1<<pAbout|1<<pEEO), 0)
		h = append(h, `<div class="content-conclusion">`...)
		h = d.appendHTML(h, 1<<pEEO, 0)
		h = append(h, `</div>`...)
		return appendEntityJSON(b, h)
	},
	flLeverTail: func(d *descDoc, b []byte) []byte {
		b = appendStrBytes(b, d.appendPlain(nil, tailParts))
		b = append(b, `,"additional":`...)
		return appendStrBytes(b, d.appendHTML(nil, tailParts, 0))
	},
	flLeverIntro: func(d *descDoc, b []byte) []byte {
		b = appendStrBytes(b, d.appendPlain(nil, introParts))
		b = append(b, `,"description":`...)
		return appendStrBytes(b, d.appendHTML(nil, introParts, 0))
	},
	flLeverLists: func(d *descDoc, b []byte) []byte {
		nl := 0
		for _, part := range [...]uint8{pDuties, pReq, pNice, pBenefits} {
			if !d.hasItems(part) {
				continue
			}
			if nl > 0 {
				b = append(b, ',')
			}
			nl++
			b = append(b, `{"text":`...)
			b = appendStrBytes(b, d.headingOf(part))
			b = append(b, `,"content":`...)
			b = appendStrBytes(b, d.appendItems(nil, part))
			b = append(b, '}')
		}
		return b
	},
	flAshby: func(d *descDoc, b []byte) []byte {
		b = appendStrBytes(b, d.appendHTML(nil, allParts, 0))
		b = append(b, `,"descriptionPlain":`...)
		return appendStrBytes(b, d.appendPlain(nil, allParts))
	},
	flWorkable: func(d *descDoc, b []byte) []byte {
		b = append(b, `,"description":`...)
		b = appendStrBytes(b, d.appendHTML(nil, allParts&^(reqParts|1<<pBenefits), 0))
		b = append(b, `,"requirements":`...)
		b = appendStrBytes(b, d.appendHTML(nil, reqParts, 1<<pReq))
		b = append(b, `,"benefits":`...)
		return appendStrBytes(b, d.appendHTML(nil, 1<<pBenefits, 1<<pBenefits))
	},
	flRecruitee: func(d *descDoc, b []byte) []byte {
		b = append(b, `,"description":`...)
		b = appendStrBytes(b, d.appendHTML(nil, allParts&^reqParts, 0))
		b = append(b, `,"requirements":`...)
		return appendStrBytes(b, d.appendHTML(nil, reqParts, 1<<pReq))
	},
	flPersonio: func(d *descDoc, b []byte) []byte {
		for part := uint8(0); part < numParts; part++ {
			if !d.has(part) {
				continue
			}
			b = append(b, "      <jobDescription>\n        <name>"...)
			b = appendXML(b, d.headingOf(part))
			b = append(b, "</name>\n        <value><![CDATA["...)
			b = d.appendHTML(b, 1<<part, 1<<part)
			b = append(b, "]]></value>\n      </jobDescription>\n"...)
		}
		return b
	},
	flTeamtailor: func(d *descDoc, b []byte) []byte { return appendXML(b, d.appendHTML(nil, allParts, 0)) },
	flPinpoint: func(d *descDoc, b []byte) []byte {
		b = appendStrBytes(b, d.appendHTML(nil, introParts|tailParts, 0))
		for _, s := range [...]struct {
			field string
			part  uint8
			mask  uint16
		}{{"key_responsibilities", pDuties, 1 << pDuties}, {"skills_knowledge_expertise", pReq, reqParts}, {"benefits", pBenefits, 1 << pBenefits}} {
			b = append(b, `,"`...)
			b = append(b, s.field...)
			b = append(b, `":`...)
			b = appendStrBytes(b, d.appendHTML(nil, s.mask, 1<<s.part))
			b = append(b, `,"`...)
			b = append(b, s.field...)
			b = append(b, `_header":`...)
			b = appendStrBytes(b, d.headingOf(s.part))
		}
		return b
	},
	flICIMS:     func(d *descDoc, b []byte) []byte { return appendXML(b, d.appendOpening(nil, icimsOpening)) },
	flHTMLJSON:  func(d *descDoc, b []byte) []byte { return appendStrBytes(b, d.appendHTML(nil, allParts, 0)) },
	flHTMLJSONH: func(d *descDoc, b []byte) []byte { return appendStrH(b, d.appendHTML(nil, allParts, 0)) },
}

// Every flavor a feed writes from the escaped text equals what the reference writers and the
// feed's escaping give, for clean texts and for texts holding what JSON escapes (quotes,
// backslashes, controls, invalid UTF-8, line separators), which take the reference path.
func TestMarkupMatchesTheReference(t *testing.T) {
	t.Parallel()
	n := 80
	if raceEnabled {
		n = 30 // the race detector makes every writer ~10x slower
	}
	w := New(Config{Seed: 31, Companies: n})
	// Same-length replacements of one paragraph's letters: a quote, a backslash, a tab, an
	// invalid byte, U+2028.
	spoil := [][]byte{nil, []byte(`"`), []byte(`\`), []byte("\t"), {0xff}, []byte("\u2028")}
	docs, unclean := 0, 0
	for i := range w.companies {
		c := &w.companies[i]
		if c.vendor == vNone {
			continue
		}
		for gi, g := range w.liveGens(c, 70) {
			for si, s := range spoil {
				if s != nil && gi%3 != 0 {
					continue
				}
				d := w.describe(c, &g)
				if s == nil {
					// What the writer escaped and found as it wrote is what a scan of the text finds.
					require.True(t, d.clean && d.quoteFree, "the sim's own texts are clean")
					var esc []string
					for _, bl := range d.blocks {
						esc = append(esc, string(d.esc[bl.elo:bl.ehi]))
					}
					rescan(d)
					for i, bl := range d.blocks {
						require.Equal(t, string(d.esc[bl.elo:bl.ehi]), esc[i])
					}
					require.True(t, d.clean && d.quoteFree)
				} else {
					// The first paragraph of the role, from its third byte.
					for _, bl := range d.blocks {
						if bl.kind == dkPara && bl.part == pRole {
							copy(d.text[bl.lo+2:bl.hi], s)
							break
						}
					}
					rescan(d)
					require.False(t, d.quoteFree, "spoiled by %q", s)
					require.Equal(t, si == 1, d.clean, "spoiled by %q", s)
					unclean++
				}
				for f := range numFlavors {
					want := referenceFlavors[f](d, []byte("x"))
					got := descFlavors[f](d, []byte("x"))
					require.Equal(t, string(want), string(got), "flavor %d, spoiled by %q", f, s)
				}
				w.release(d)
				docs++
			}
		}
	}
	t.Logf("%d descriptions, %d spoiled", docs, unclean)
	require.Positive(t, unclean)

	// A value the writer puts in the text (here the company's name) spoils it as well.
	for _, name := range []string{`Say "Hi"`, `Back\slash`, "Line\u2028Sep", "Tab\tCo", "Bad\xffByte", "Fine & Dandy's"} {
		c := &w.companies[slices.IndexFunc(w.companies, func(c company) bool { return c.vendor != vNone })]
		c.core = name
		g := w.liveGens(c, 70)[0]
		d := w.describe(c, &g)
		require.Contains(t, string(d.text), name)
		esc, clean, quoteFree := slices.Clone(d.esc), d.clean, d.quoteFree
		rescan(d)
		require.Equal(t, string(d.esc), string(esc), name)
		require.Equal(t, d.clean, clean, name)
		require.Equal(t, d.quoteFree, quoteFree, name)
		for f := range numFlavors {
			require.Equal(t, string(referenceFlavors[f](d, nil)), string(descFlavors[f](d, nil)), "flavor %d, company %q", f, name)
		}
		w.release(d)
	}
}

// rescan escapes d's blocks and tells whether its text is clean from the text as it is.
func rescan(d *descDoc) {
	d.esc = d.esc[:0]
	for i := range d.blocks {
		bl := &d.blocks[i]
		bl.elo = int32(len(d.esc))
		d.esc = appendXML(d.esc, d.text[bl.lo:bl.hi])
		bl.ehi = int32(len(d.esc))
	}
	d.clean = jsonClean(d.text)
	d.quoteFree = d.clean && !bytes.Contains(d.text, []byte(`"`))
}

// The cache keeps what it is asked to within its bound: a world whose descriptions do not fit
// evicts, takes in fewer reqs, and renders what a world keeping nothing renders, tick after tick.
func TestDescriptionCacheIsBounded(t *testing.T) {
	t.Parallel()
	cfg := Config{Seed: 5, Companies: 60, DescriptionCache: -1}
	ticks := []int{40, 41}
	none := New(cfg)
	require.Nil(t, none.dcache, "nothing is kept")
	want := goldenHash(none, ticks)

	cfg.DescriptionCache = 128 << 10
	w := New(cfg)
	for range 3 {
		require.Equal(t, want, goldenHash(w, ticks))
		w.dcache.mu.Lock()
		var n int64
		for _, e := range w.dcache.queue[w.dcache.head:] {
			n += e.size
		}
		require.Equal(t, w.dcache.total, n)
		require.LessOrEqual(t, n, int64(cfg.DescriptionCache))
		w.dcache.mu.Unlock()
	}
	require.Positive(t, w.dcache.head, "a small bound evicts")
	require.Less(t, w.dcache.admit.Load(), uint32(admitAll), "entries leaving unread take fewer reqs in")
}
