// Package destination is what the destinations people use besides a signed webhook need of
// their own: the rules of a Slack incoming-webhook URL (CheckSlackURL, MaskSlackURL), the Block
// Kit message one or several delivery bodies make (SlackMessage, at most MaxSlackChanges changes
// within Slack's 50 blocks), the rules of an email address (CheckEmail) and the daily digest
// message (Digest: a plain text and HTML multipart/alternative message). The API checks what a
// customer registers with it; the dispatcher and the digest render what they send with it.
//
// It owns these shapes and rules only: it must not read or write any store, dial, send, sign or
// know about customers and their keys. It renders delivery bodies (package payload) as they are
// stored, so a retry or a replay renders the same changes.
package destination
