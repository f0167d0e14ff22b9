package e2e

// The landing page in a real browser: Debian's headless Chromium against
// the running demo. The page itself has no script; to measure its width
// the test serves a wrapper page of its own, on the same origin as a copy
// of the landing page, whose script reads the framed page's scroll width.

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
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
	if want := 48; len(rows) != want { // the demo: 6 sources, 2 projects, 3 windows, and visitors' and views' totals
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

	// A screenshot, kept as the test's artifact.
	shot := filepath.Join(t.TempDir(), "landing-page.png")
	if dir := os.Getenv("LANDING_SCREENSHOT_DIR"); dir != "" {
		shot = filepath.Join(dir, "landing-page.png")
	}
	chromium(t, bin, "--window-size=1280,1600", "--screenshot="+shot, landing)
	if fi, err := os.Stat(shot); err != nil || fi.Size() < 10_000 {
		t.Fatalf("no screenshot at %s: %v", shot, err)
	}
	t.Logf("screenshot of the demo's landing page: %s", shot)
}
