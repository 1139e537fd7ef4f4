// Package flagenv binds command-line flags to HS_* environment fallbacks.
//
// It owns the rule "flag beats environment beats default" and the --help text that lists every
// flag with its variable. It must not hold configuration itself: each command owns its values.
package flagenv

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Set is a flag.FlagSet whose flags fall back to environment variables.
type Set struct {
	*flag.FlagSet
	errs []string
	env  map[string]string // flag name → its variable, where it is not the flag's HS_* name (EnvName)
}

// New returns a Set for the command name; usage lists every flag with its HS_* variable.
func New(name, summary string) *Set {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	s := &Set{FlagSet: fs, env: map[string]string{}}
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintf(out, "Usage: hiringsignal %s [flags]\n\n%s\n\nFlags (each falls back to the environment variable shown):\n", name, summary)
		fs.PrintDefaults()
	}
	return s
}

func envName(flagName string) string {
	return "HS_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// Env returns the value of the environment variable name when it is set (to "" too), else def:
// the fallback rule of every flag here, for a flag whose variable is not its HS_* name
// (listen's --listen reads HS_RECEIVER_LISTEN) or that is not on a Set (the benchmarks').
func Env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

// EnvName makes the flag name, defined after this call, fall back to the variable env instead
// of its HS_* name: for a flag whose plain name would be ambiguous in a process that runs several
// parts (the crawl's --ca-file reads HS_CRAWL_CA_FILE, which no one takes for the API's).
func (s *Set) EnvName(name, env string) {
	s.env[name] = env
}

// varName is the variable flag name falls back to.
func (s *Set) varName(name string) string {
	if v, ok := s.env[name]; ok {
		return v
	}
	return envName(name)
}

func (s *Set) envOr(name, def string) string {
	return Env(s.varName(name), def)
}

func (s *Set) usage(name, usage string) string {
	return fmt.Sprintf("%s (env %s)", usage, s.varName(name))
}

// String defines a string flag with an HS_* fallback.
func (s *Set) String(name, def, usage string) *string {
	return s.FlagSet.String(name, s.envOr(name, def), s.usage(name, usage))
}

// Int defines an int flag with an HS_* fallback.
func (s *Set) Int(name string, def int, usage string) *int {
	v := def
	if e := s.envOr(name, ""); e != "" {
		n, err := strconv.Atoi(e)
		if err != nil {
			s.errs = append(s.errs, fmt.Sprintf("cannot parse %s=%q as an integer", s.varName(name), e))
		} else {
			v = n
		}
	}
	return s.FlagSet.Int(name, v, s.usage(name, usage))
}

// Float defines a float flag with an HS_* fallback.
func (s *Set) Float(name string, def float64, usage string) *float64 {
	v := def
	if e := s.envOr(name, ""); e != "" {
		n, err := strconv.ParseFloat(e, 64)
		if err != nil {
			s.errs = append(s.errs, fmt.Sprintf("cannot parse %s=%q as a number", s.varName(name), e))
		} else {
			v = n
		}
	}
	return s.FlagSet.Float64(name, v, s.usage(name, usage))
}

// Bool defines a bool flag with an HS_* fallback.
func (s *Set) Bool(name string, def bool, usage string) *bool {
	v := def
	if e := s.envOr(name, ""); e != "" {
		b, err := strconv.ParseBool(e)
		if err != nil {
			s.errs = append(s.errs, fmt.Sprintf("cannot parse %s=%q as a boolean", s.varName(name), e))
		} else {
			v = b
		}
	}
	return s.FlagSet.Bool(name, v, s.usage(name, usage))
}

// Duration defines a duration flag with an HS_* fallback.
func (s *Set) Duration(name string, def time.Duration, usage string) *time.Duration {
	v := def
	if e := s.envOr(name, ""); e != "" {
		d, err := time.ParseDuration(e)
		if err != nil {
			s.errs = append(s.errs, fmt.Sprintf("cannot parse %s=%q as a duration (e.g. 3h, 30s)", s.varName(name), e))
		} else {
			v = d
		}
	}
	return s.FlagSet.Duration(name, v, s.usage(name, usage))
}

// List defines a repeatable string flag with an HS_* fallback: each --name on the command line
// adds its value, and a value or the variable holding commas adds each item (spaces around them
// trimmed, empty ones dropped). Values given on the command line replace the variable's, which
// replaces def.
func (s *Set) List(name string, def []string, usage string) *[]string {
	v := &listValue{vals: new([]string)}
	*v.vals = append(*v.vals, def...)
	if e, ok := os.LookupEnv(s.varName(name)); ok && e != "" {
		*v.vals = splitList(e)
	}
	s.FlagSet.Var(v, name, s.usage(name, usage+" (repeatable, or comma-separated)"))
	return v.vals
}

// listValue is a List flag's value; given turns true at the first value from the command line,
// which drops the default or the variable's items.
type listValue struct {
	vals  *[]string
	given bool
}

func (l *listValue) String() string {
	if l == nil || l.vals == nil {
		return ""
	}
	return strings.Join(*l.vals, ",")
}

func (l *listValue) Set(v string) error {
	if !l.given {
		*l.vals = nil
		l.given = true
	}
	*l.vals = append(*l.vals, splitList(v)...)
	return nil
}

func splitList(v string) []string {
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// Given reports, after Parse, whether the flag name was set on the command line or by its HS_*
// variable (set and not empty): a command that does something of its own for a value left at its
// default (dev runs private stores) asks Given, never the environment alone.
func (s *Set) Given(name string) bool {
	given := s.envOr(name, "") != ""
	s.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// Parse parses args; bad environment values are reported as errors naming the variable.
func (s *Set) Parse(args []string) error {
	if len(s.errs) > 0 {
		return fmt.Errorf("%s", strings.Join(s.errs, "; "))
	}
	return s.FlagSet.Parse(args)
}
