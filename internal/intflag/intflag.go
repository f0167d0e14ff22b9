// Package intflag is a kingpin int flag not read through float64 as kingpin's.
package intflag

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/alecthomas/kingpin/v2"
)

// Value is an int flag: a decimal integer and nothing else.
type Value struct {
	name string // for errors: kingpin does not name the flag
	p    *int
}

// Var makes the flag c an integer flag stored into p.
func Var(c *kingpin.FlagClause, p *int) {
	c.SetValue(&Value{name: c.Model().Name, p: p})
}

// Set parses s.
func (v *Value) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, strconv.IntSize)
	var ne *strconv.NumError
	switch {
	case err == nil:
		*v.p = int(n)
		return nil
	case errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange):
		return fmt.Errorf("--%s=%s is out of range; give a smaller whole number", v.name, s)
	default:
		return fmt.Errorf("--%s=%q is not a whole number; give digits only, such as 90", v.name, s)
	}
}

// String returns the value in decimal.
func (v *Value) String() string { return strconv.Itoa(*v.p) }
