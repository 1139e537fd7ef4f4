// Package jobtext owns what a posting says about itself in its own words: the plain text of its
// description (Clean) and the fields read from its title and text (Derive): technologies, each
// required or nice-to-have where the posting separates them; seniority; employment type;
// workplace type with the countries a remote role is open to; minimum years of experience; visa
// sponsorship; and pay as stated in the text. It reads English, German, French and Spanish.
//
// A field the posting does not state is left nil or empty, never filled from a default, another
// field or the company: nil means "not said", and two statements that contradict each other are
// "not said" too. Technologies come only from the vocabulary (vocab.go), seniorities only from
// normalize.Seniorities (the vocabulary reqs/qualified already serves), countries only from
// normalize's country table.
//
// The technology vocabulary is a Go table rather than an embedded file: its categories are
// constants a typo cannot miss, it is reviewed and blamed like code, it needs no loader or error
// path at start-up, and its test (TestVocabularyIsConsistent, TestEveryNameIsFound) runs with the
// package's. Adding a technology is one row: a stable slug (what is stored and served; never
// renamed), a display name, a category and its aliases, marked "=" when only one case is the
// product ("Slack") and "~" when it is also a common word and needs a technical context ("Go",
// "R", "Swift", "Spring").
//
// Matching is by words, in one pass: the text is lexed once into folded words (lower case, Latin
// diacritics removed), each looked up as it is lexed in one word table that holds every table
// phrase's key and the word classes (wordtab.go), and every table phrase (aliases, headings, cue
// phrases) is looked up by the run of words starting at each word, growing while it is the
// prefix of some phrase (dict.go). There is no regular expression per entry, and Clean and Derive
// are linear in their input. Clean reads HTML in a pass of its own where it can and with
// golang.org/x/net/html's tokenizer where it must, with the same answer (clean.go, scanHTML).
// Their outputs over a corpus of the crawl's descriptions are held by TestGolden: a change that
// only makes them faster leaves every one as it is.
//
// It is pure: no I/O, no clock, no state between calls but pooled working arrays that never
// reach a caller (a Pay's Stated and Clean's text are copies); the tables are built once at
// start-up and only read afterwards, so every function is safe for concurrent use. It is a leaf: it
// imports the standard library, golang.org/x/net/html and internal/normalize, and nothing of the
// crawl, the stores, the read side or the API; it must not be wired into them from here.
package jobtext
