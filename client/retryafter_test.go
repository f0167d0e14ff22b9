package client_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, tc := range []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"   ", 0, false},
		{"0", 0, true},
		{"120", 2 * time.Minute, true},
		{" 7 ", 7 * time.Second, true},
		{"-5", 0, true},
		{"99999999999999999999999", 365 * 24 * time.Hour, true},
		{"-99999999999999999999999", 0, true},
		{"-", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(90 * time.Second).Format("Monday, 02-Jan-06 15:04:05 GMT"), 90 * time.Second, true},
		{now.Add(90 * time.Second).Format(time.ANSIC), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"Wed, 32 Foo 2015 07:28:00 GMT", 0, false},
	} {
		got, ok := client.ParseRetryAfter(tc.in, now)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.wantOK)
		}
	}
}
