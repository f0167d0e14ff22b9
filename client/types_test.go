package client_test

import (
	"slices"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

func TestDates(t *testing.T) {
	now := time.Date(2025, 3, 1, 23, 30, 0, 0, time.FixedZone("X", -2*3600)) // 2025-03-02 01:30 UTC
	r := client.LastNDays(now, 7)
	if r.String() != "[2025-02-24, 2025-03-03)" || r.Days() != 7 {
		t.Errorf("LastNDays = %v (%d days)", r, r.Days())
	}
	if r1 := client.LastNDays(now, 1); r1.From.String() != "2025-03-02" || r1.Days() != 1 {
		t.Errorf("LastNDays(1) = %v", r1)
	}
	d, err := client.ParseDate("2024-02-29")
	if err != nil || d.AddDays(1).String() != "2024-03-01" || d.IsZero() {
		t.Errorf("ParseDate = %v, %v", d, err)
	}
	if _, err := client.ParseDate("2023-02-29"); err == nil {
		t.Error("ParseDate accepted 2023-02-29")
	}
	if !(client.Date{}).IsZero() {
		t.Error("zero Date not IsZero")
	}
}

func TestEndpointsAndStatuses(t *testing.T) {
	analytics := map[client.Endpoint]bool{
		client.EndpointVisitors: true, client.EndpointViews: true, client.EndpointCallerStats: true,
		client.EndpointFeedbackByPage: true, client.EndpointSearches: true, client.EndpointConversations: true,
	}
	want := []string{"visitors", "views", "caller_stats", "feedback_by_page", "searches", "conversations", "get_job", "send_message", "list_jobs", "create_job"}
	var got []string
	for _, e := range client.Endpoints {
		got = append(got, e.String())
	}
	// A source's descriptor may add analytics endpoints of its own
	// (client.Analytics): they come after the built-in ones.
	if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Errorf("Endpoints = %v, want %v first", got, want)
	}
	for i, e := range client.Endpoints {
		if e.Analytics() != (analytics[e] || i >= len(want)) {
			t.Errorf("%s.Analytics() = %v", e, e.Analytics())
		}
	}
	for _, s := range client.JobStatuses {
		if !s.Known() || s.Terminal() == (s == client.StatusActive) {
			t.Errorf("status %s: Known %v Terminal %v", s, s.Known(), s.Terminal())
		}
	}
}
