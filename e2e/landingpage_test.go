package e2e

// The landing page in a real browser: Debian's headless Chromium against
// the running demo. The page itself has no script; to measure its width
// the test serves a wrapper page of its own, on the same origin as a copy
// of the landing page, whose script reads the framed page's scroll width.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
)

// chromium runs headless Chromium with the flags that work on a closed
// machine as root, and returns its standard output.
func chromium(t *testing.T, bin string, args ...string) string {
	t.Helper()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}
	cmd := exec.Command(bin, append(base, args...)...)
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("chromium %q did not end within 90 s", args)
	}
	if err != nil {
		t.Fatalf("chromium %q: %v\n%s", args, err, out)
	}
	return string(out)
}

func TestLandingPageInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser (-short)")
	}
	bin := lookTool(t, "chromium", "chromium", "chromium-browser")
	p := startExporter(t, nil, "--demo")
	// The first data of every unit, so every row has a state to show.
	eventually(t, 30*time.Second, "the demo's first data", func() string {
		if resp, body := p.get(t, "/-/ready", nil); resp.StatusCode != http.StatusOK {
			return string(body)
		}
		return ""
	})
	landing := "http://" + p.addr + "/"

	// Every unit's row shows its state, in the DOM Chromium builds.
	dom := chromium(t, bin, "--dump-dom", landing)
	rows := regexp.MustCompile(`<td class="state-(ok|waiting|failing|refreshing|pending)">[^<]+</td>`).FindAllString(dom, -1)
	// The demo runs every source (collector.Sources: 6, and any a descriptor
	// adds) over 2 projects and 3 windows, and visitors' and views' totals.
	if want := 2 * 3 * (len(collector.Sources) + 2); len(rows) != want {
		t.Errorf("%d unit rows with a state, want %d:\n%.3000s", len(rows), want, dom)
	}
	if !strings.Contains(dom, "DEMO MODE") || !strings.Contains(dom, "units:") {
		t.Errorf("the demo banner or the summary line is missing:\n%.3000s", dom)
	}

	// The width at 1280 and 800 px: a wrapper on the test's own origin
	// frames a copy of the landing page at that width and writes its
	// scroll width into the DOM.
	mux := http.NewServeMux()
	mux.HandleFunc("/landing", func(w http.ResponseWriter, r *http.Request) {
		resp, err := http.Get(landing)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.Copy(w, resp.Body)
	})
	mux.HandleFunc("/wrap", func(w http.ResponseWriter, r *http.Request) {
		width, err := strconv.Atoi(r.URL.Query().Get("width"))
		if err != nil {
			http.Error(w, "width", http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, `<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" src="/landing" style="width:%dpx;height:900px;border:0"></iframe>
<pre id="out">pending</pre>
<script>
document.getElementById("f").onload = function () {
  var d = document.getElementById("f").contentDocument.documentElement;
  document.getElementById("out").textContent = "scrollWidth=" + d.scrollWidth + " clientWidth=" + d.clientWidth;
};
</script></body></html>`, width)
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()
	for _, width := range []int{1280, 800} {
		wrapped := chromium(t, bin, "--window-size=1400,1000", "--virtual-time-budget=10000", "--dump-dom", fmt.Sprintf("%s/wrap?width=%d", ts.URL, width))
		m := regexp.MustCompile(`scrollWidth=(\d+) clientWidth=(\d+)`).FindStringSubmatch(wrapped)
		if m == nil {
			t.Fatalf("the wrapper did not measure the page at %d px:\n%.2000s", width, wrapped)
		}
		scroll, _ := strconv.Atoi(m[1])
		client, _ := strconv.Atoi(m[2])
		t.Logf("at %d px the landing page is %d px wide (%d px visible)", width, scroll, client)
		if scroll > client {
			t.Errorf("the landing page scrolls horizontally at %d px: %d px wide for %d", width, scroll, client)
		}
	}

	// The screenshot of docs/landing-page.png. Pixels differ from run to
	// run (times, ages, the budget left), so the image carries the facts
	// of the page it shows, in an iTXt chunk: what does not change from
	// one run of the demo to the next (landingFacts). The committed image
	// must carry the facts of today's page, or the test fails: a page that
	// gains a section, a unit, a column or other words cannot leave a stale
	// image behind. LANDING_SCREENSHOT_UPDATE=1 writes the image anew.
	facts := landingFacts(dom)
	const committed = "../docs/landing-page.png"
	shot := filepath.Join(t.TempDir(), "landing-page.png")
	if dir := os.Getenv("LANDING_SCREENSHOT_DIR"); dir != "" {
		shot = filepath.Join(dir, "landing-page.png")
	}
	chromium(t, bin, "--window-size=1280,1600", "--hide-scrollbars", "--screenshot="+shot, landing)
	img, err := os.ReadFile(shot)
	if err != nil || len(img) < 10_000 {
		t.Fatalf("no screenshot at %s: %v", shot, err)
	}
	img, err = withPNGText(img, landingFactsKey, facts)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shot, img, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of the demo's landing page: %s", shot)
	if os.Getenv("LANDING_SCREENSHOT_UPDATE") != "" {
		if err := os.WriteFile(committed, img, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", committed)
		return
	}
	old, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	was, err := pngText(old, landingFactsKey)
	if err != nil {
		t.Fatalf("%s: %v: it was not made by this test; make it with LANDING_SCREENSHOT_UPDATE=1 go test -run TestLandingPageInABrowser ./e2e/", committed, err)
	}
	if was != facts {
		t.Errorf("%s shows a page that is not today's; make it again with LANDING_SCREENSHOT_UPDATE=1 go test -run TestLandingPageInABrowser ./e2e/\n%s",
			committed, lineDiff(was, facts))
	}
}

// landingFactsKey names the PNG text chunk holding the page's facts.
const landingFactsKey = "mintlify_exporter landing page facts"

var (
	factTag     = regexp.MustCompile(`<[^>]*>`)
	factDigits  = regexp.MustCompile(`[0-9]+`)
	factSpace   = regexp.MustCompile(`\s+`)
	factBlock   = regexp.MustCompile(`(?s)<(h1|h2|p|pre)\b([^>]*)>(.*?)</(?:h1|h2|p|pre)>|<table>(.*?)</table>`)
	factRow     = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	factCell    = regexp.MustCompile(`(?s)<t[hd][^>]*>(.*?)</t[hd]>`)
	factSummary = regexp.MustCompile(`^([0-9]+) units: .*Requests left this hour: [0-9]+ of ([0-9]+)\.`)
)

// landingFacts are the facts of the landing page (as Chromium's DOM) that
// do not change from one run of the demo to the next, one a line, in the
// page's order: every heading, paragraph and example command with its
// numbers written N (times, ports, counts of the moment); the summary's
// number of units and hourly budget; each table's columns, and each row's
// cells in the columns that name a thing (source, project, window, job,
// key, rule) rather than its state of the moment.
func landingFacts(dom string) string {
	text := func(s string) string {
		return strings.TrimSpace(factSpace.ReplaceAllString(html.UnescapeString(factTag.ReplaceAllString(s, "")), " "))
	}
	var out []string
	for _, m := range factBlock.FindAllStringSubmatch(dom, -1) {
		if m[4] == "" && m[1] != "" {
			t := text(m[3])
			if m[1] == "p" && strings.Contains(m[2], "summary") {
				if s := factSummary.FindStringSubmatch(t); s != nil {
					out = append(out, "summary: "+s[1]+" units, "+s[2]+" requests an hour")
				} else {
					out = append(out, "summary: unreadable: "+factDigits.ReplaceAllString(t, "N"))
				}
				continue
			}
			out = append(out, m[1]+": "+factDigits.ReplaceAllString(t, "N"))
			continue
		}
		var keep []int
		for i, row := range factRow.FindAllStringSubmatch(m[4], -1) {
			cells := factCell.FindAllStringSubmatch(row[1], -1)
			var line []string
			for j, c := range cells {
				if i == 0 {
					name := text(c[1])
					line = append(line, name)
					if slices.Contains([]string{"source", "project", "window", "job", "key", "rule"}, name) {
						keep = append(keep, j)
					}
				} else if slices.Contains(keep, j) {
					line = append(line, text(c[1]))
				}
			}
			if i == 0 {
				out = append(out, "columns: "+strings.Join(line, " | "))
			} else {
				out = append(out, "row: "+strings.Join(line, " | "))
			}
		}
	}
	return strings.Join(out, "\n") + "\n"
}

// lineDiff lists the lines only one of was and now has.
func lineDiff(was, now string) string {
	var b strings.Builder
	a, c := strings.Split(was, "\n"), strings.Split(now, "\n")
	for _, l := range a {
		if !slices.Contains(c, l) {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	for _, l := range c {
		if !slices.Contains(a, l) {
			fmt.Fprintf(&b, "+ %s\n", l)
		}
	}
	if b.Len() == 0 {
		return "(the same lines in another order or number)"
	}
	return b.String()
}

// withPNGText returns png with an iTXt chunk key=text (UTF-8, not
// compressed) after its header chunk, replacing one of the same key.
func withPNGText(png []byte, key, text string) ([]byte, error) {
	chunks, err := pngChunks(png)
	if err != nil {
		return nil, err
	}
	data := append(append([]byte(key), 0, 0, 0, 0, 0), text...)
	out := append([]byte{}, png[:8]...)
	for i, c := range chunks {
		if c.typ == "iTXt" && bytes.HasPrefix(c.data, append([]byte(key), 0)) {
			continue
		}
		out = appendPNGChunk(out, c.typ, c.data)
		if i == 0 {
			out = appendPNGChunk(out, "iTXt", data)
		}
	}
	return out, nil
}

// pngText returns the text of png's iTXt chunk key.
func pngText(png []byte, key string) (string, error) {
	chunks, err := pngChunks(png)
	if err != nil {
		return "", err
	}
	prefix := append([]byte(key), 0, 0, 0, 0, 0)
	for _, c := range chunks {
		if c.typ == "iTXt" && bytes.HasPrefix(c.data, prefix) {
			return string(c.data[len(prefix):]), nil
		}
	}
	return "", fmt.Errorf("no %q text in the image", key)
}

type pngChunk struct {
	typ  string
	data []byte
}

// pngChunks splits a PNG file into its chunks, checking each CRC.
func pngChunks(b []byte) ([]pngChunk, error) {
	if len(b) < 8 || string(b[:8]) != "\x89PNG\r\n\x1a\n" {
		return nil, errors.New("not a PNG file")
	}
	var out []pngChunk
	for b = b[8:]; len(b) > 0; {
		if len(b) < 12 {
			return nil, errors.New("a truncated PNG chunk")
		}
		n := int(binary.BigEndian.Uint32(b))
		if n > len(b)-12 {
			return nil, errors.New("a truncated PNG chunk")
		}
		typ, data := string(b[4:8]), b[8:8+n]
		if crc32.ChecksumIEEE(b[4:8+n]) != binary.BigEndian.Uint32(b[8+n:]) {
			return nil, fmt.Errorf("PNG chunk %s: bad CRC", typ)
		}
		out = append(out, pngChunk{typ, data})
		b = b[12+n:]
	}
	if len(out) == 0 || out[0].typ != "IHDR" {
		return nil, errors.New("a PNG file without its header chunk")
	}
	return out, nil
}

func appendPNGChunk(out []byte, typ string, data []byte) []byte {
	out = binary.BigEndian.AppendUint32(out, uint32(len(data)))
	start := len(out)
	out = append(append(out, typ...), data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
}
