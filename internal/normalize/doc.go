// Package normalize owns the normalization rules of the hiring-signal
// service: country names and codes (countries.go, generated from Debian
// iso-codes), the place tables (places.go: cities, the one US-state table,
// Canadian provinces), the country of a free-text location and the fallback
// chain that gives a posting its country (PostingCountry), the function
// taxonomy and the title classifier, title dedup keys and display titles,
// company and domain keys, yearly-USD salary conversion, search tokens and
// stems, agency classification, the headcount band ladder, the seniority
// vocabulary with a title's seniority (seniority.go), and the employment type
// and workplace type vocabularies with the readings of the words feeds state
// them and a seniority level in (jobterms.go).
//
// It is pure: no I/O, no HTTP, no database, no clock, and it imports no other
// package of this project. All tables are package-level values built once at
// start-up and never written afterwards, so every function is safe for
// concurrent use. The hot paths (TitleKey, CompanyKey, Classify, CountryName,
// Tokens) use no regular expressions and allocate little.
package normalize
