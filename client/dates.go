package client

import (
	"fmt"
	"time"
)

// Date is a calendar day in UTC, sent upstream as YYYY-MM-DD.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf returns the UTC calendar day of t.
func DateOf(t time.Time) Date {
	y, m, d := t.UTC().Date()
	return Date{Year: y, Month: m, Day: d}
}

// ParseDate parses a YYYY-MM-DD date.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("invalid date %q: want YYYY-MM-DD", s)
	}
	return DateOf(t), nil
}

// Time returns midnight UTC at the start of the day.
func (d Date) Time() time.Time { return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC) }

// AddDays returns the day n days after d.
func (d Date) AddDays(n int) Date { return DateOf(d.Time().AddDate(0, 0, n)) }

// IsZero reports whether d is the zero Date.
func (d Date) IsZero() bool { return d == Date{} }

// String formats the day as YYYY-MM-DD, the form the API takes.
func (d Date) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day) }

// DateRange is a half-open range of days, as dateFrom and dateTo.
type DateRange struct {
	From Date
	To   Date
}

// LastNDays returns the n UTC days ending with today, today included.
func LastNDays(now time.Time, n int) DateRange {
	today := DateOf(now)
	return DateRange{From: today.AddDays(-(n - 1)), To: today.AddDays(1)}
}

// Days is the number of days in the range.
func (r DateRange) Days() int { return int(r.To.Time().Sub(r.From.Time()).Hours() / 24) }

// String formats the range as "[from, to)".
func (r DateRange) String() string { return "[" + r.From.String() + ", " + r.To.String() + ")" }
