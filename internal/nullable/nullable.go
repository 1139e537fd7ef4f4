// Package nullable is the one spelling of "an empty string is absent": the *string a JSON view
// serves as null and a SQL parameter binds as NULL. The read routes, the webhook bodies and the
// stores all fill optional text fields with it.
//
// It owns that rule only: it must not import any other package of this project, nor decide
// which fields are optional (each view and store says so itself).
package nullable

// String returns nil for "" and a pointer to a copy of s otherwise.
func String(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
