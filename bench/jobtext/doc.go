// Package jobtext holds the Go benchmarks of internal/jobtext: Clean and Derive per posting over
// the package's test postings, beside two baselines over the same bytes in the same run, the JSON
// decoding of the posting as a feed sends it and strings.ToLower of its description. It also
// writes internal/jobtext's golden corpus (corpus_test.go: the simulator's feeds and the captured
// payloads read by the adapters, which that leaf may not import). It owns no production code and
// must not be imported.
package jobtext
