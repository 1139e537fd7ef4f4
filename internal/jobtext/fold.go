package jobtext

import (
	"unicode"
	"unicode/utf8"
)

// Folding: the text a word is matched by is its lower case with Latin diacritics removed, so
// "Prácticas" and "practicas", "Wünschenswert" and "wunschenswert", "Expérience" and
// "experience" are one word. Table phrases are folded the same way when the tables are built.

// foldPairs maps a lower-case Latin letter with a diacritic to its base letters.
var foldPairs = map[rune]string{
	'à': "a", 'á': "a", 'â': "a", 'ã': "a", 'ä': "a", 'å': "a", 'ā': "a", 'ă': "a", 'ą': "a",
	'æ': "ae", 'ç': "c", 'ć': "c", 'č': "c", 'ĉ': "c", 'ċ': "c", 'ď': "d", 'đ': "d", 'ð': "d",
	'è': "e", 'é': "e", 'ê': "e", 'ë': "e", 'ē': "e", 'ĕ': "e", 'ė': "e", 'ę': "e", 'ě': "e",
	'ğ': "g", 'ĝ': "g", 'ġ': "g", 'ģ': "g", 'ĥ': "h", 'ħ': "h",
	'ì': "i", 'í': "i", 'î': "i", 'ï': "i", 'ĩ': "i", 'ī': "i", 'į': "i", 'ı': "i",
	'ĵ': "j", 'ķ': "k", 'ĺ': "l", 'ļ': "l", 'ľ': "l", 'ł': "l", 'ñ': "n", 'ń': "n", 'ņ': "n", 'ň': "n",
	'ò': "o", 'ó': "o", 'ô': "o", 'õ': "o", 'ö': "o", 'ø': "o", 'ō': "o", 'ő': "o", 'œ': "oe",
	'ŕ': "r", 'ř': "r", 'ś': "s", 'ŝ': "s", 'ş': "s", 'š': "s", 'ș': "s", 'ß': "ss",
	'ţ': "t", 'ť': "t", 'ț': "t", 'þ': "th", 'ù': "u", 'ú': "u", 'û': "u", 'ü': "u", 'ũ': "u", 'ū': "u",
	'ŭ': "u", 'ů': "u", 'ű': "u", 'ų': "u", 'ŵ': "w", 'ý': "y", 'ÿ': "y", 'ŷ': "y",
	'ź': "z", 'ż': "z", 'ž': "z",
}

// appendFold appends the folded form of r.
func appendFold(dst []byte, r rune) []byte {
	if r < utf8.RuneSelf {
		c := byte(r)
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		return append(dst, c)
	}
	r = unicode.ToLower(r)
	if s, ok := foldPairs[r]; ok {
		return append(dst, s...)
	}
	return utf8.AppendRune(dst, r)
}
