package exposition

import "testing"

// TestSeriesTextIsSizedExactly: a family's text is kept until the next
// refresh and is most of the memory at large sites, so it has no slack.
func TestSeriesTextIsSizedExactly(t *testing.T) {
	c := Series("m", []string{"path", "kind"}, "p\"", "7d", []Sample{
		{Labels: [2]string{"/a\\b\n", `"q"`}, Value: 1.5},
		{Labels: [2]string{"/plain", "human"}, Value: 12},
		{Value: -1},
	})
	if len(c.text) == 0 || cap(c.text) != len(c.text) {
		t.Fatalf("text of %d bytes has capacity %d", len(c.text), cap(c.text))
	}
}
