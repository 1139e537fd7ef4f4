// Package jobtext holds the Go benchmarks of internal/jobtext: Clean and Derive per posting over
// the package's test postings, beside two baselines over the same bytes in the same run, the JSON
// decoding of the posting as a feed sends it and strings.ToLower of its description. It owns no
// production code and must not be imported.
package jobtext
