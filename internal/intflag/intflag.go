// Package intflag is a kingpin flag value for integers parsed as integers.
// kingpin's own IntVar reads through float64: "1.9" becomes 1 and
// 9223372036854775807 overflows to a negative number.
package intflag

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/alecthomas/kingpin/v2"
)

// Value is an int flag: a decimal integer (an optional sign and digits),
// nothing else.
type Value struct {
	name string // the flag's name, for errors: kingpin does not name it
	p    *int
}

// Var makes the flag c an integer flag stored into p.
func Var(c *kingpin.FlagClause, p *int) {
	c.SetValue(&Value{name: c.Model().Name, p: p})
}

// Set parses s as a decimal integer.
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
