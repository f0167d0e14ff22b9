package cli

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/alecthomas/kingpin/v2"
	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/common/version"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
	"github.com/mintlify-exporter/mintlify_exporter/demo"
)

// apiFlags are the --mintlify.* flags: where the API is, the key, the
// projects, the timeout and the analytics request budget.
type apiFlags struct {
	url                string
	keyFile            string
	projectIDs         []string
	timeout            time.Duration
	requestsPerHour    int
	requestsPerHourSet bool // backfill's default differs from serve's
}

// maxTimeout bounds --mintlify.timeout: beyond it a value is a typo.
const maxTimeout = time.Hour

func (a *apiFlags) register(app *kingpin.Application) {
	app.Flag("mintlify.api-url", "Base address of the Mintlify API.").Default(client.DefaultBaseURL).StringVar(&a.url)
	app.Flag("mintlify.api-key-file", "File holding the admin API key (re-read when it changes). Without it the key is read from the MINTLIFY_API_KEY environment variable.").PlaceHolder("FILE").StringVar(&a.keyFile)
	app.Flag("mintlify.project-id", "Project to export; repeat for every project of the organization. Default: MINTLIFY_PROJECT_ID (comma-separated).").PlaceHolder("ID").StringsVar(&a.projectIDs)
	app.Flag("mintlify.timeout", "Timeout of each request to the API.").Default("30s").DurationVar(&a.timeout)
	intVar(app.Flag("mintlify.requests-per-hour", fmt.Sprintf("Analytics requests the exporter may send per sliding hour, shared by all projects and windows (the API allows %d per organization).", client.AnalyticsRequestsPerHour)).
		Default("90").IsSetByUser(&a.requestsPerHourSet), &a.requestsPerHour)
}

// check validates the API flags, before connect, warning of a budget above
// the API's limit; with the demo, the API address is its own.
func (a *apiFlags) check(demo bool, logger log.Logger) error {
	if a.timeout <= 0 || a.timeout > maxTimeout {
		return fmt.Errorf("--mintlify.timeout must be positive and at most %s, not %s", maxTimeout, a.timeout)
	}
	if err := checkAPIURL(a.url); !demo && err != nil {
		return fmt.Errorf("--mintlify.api-url=%q: %v", a.url, err)
	}
	if a.requestsPerHour < 1 {
		return fmt.Errorf("--mintlify.requests-per-hour must be at least 1, not %d", a.requestsPerHour)
	}
	if a.requestsPerHour > client.AnalyticsRequestsPerHour {
		level.Warn(logger).Log("msg", fmt.Sprintf("--mintlify.requests-per-hour=%d is above the API's limit of %d analytics requests per organization an hour: expect 429 answers, for this exporter and for everything else of the organization that uses the API", a.requestsPerHour, client.AnalyticsRequestsPerHour))
	}
	return nil
}

// projects returns the configured projects: the flags, else the
// environment. An empty or blank --mintlify.project-id is an error (an
// unset shell variable), as is one given twice.
func (a *apiFlags) projects() ([]string, error) {
	if len(a.projectIDs) > 0 {
		for i, p := range a.projectIDs {
			if strings.TrimSpace(p) == "" {
				return nil, errors.New("--mintlify.project-id is empty (an unset shell variable?): give the project id from the API keys page of the Mintlify dashboard")
			}
			if err := checkProjectID(p); err != nil {
				return nil, fmt.Errorf("--mintlify.project-id=%q: %v", p, err)
			}
			if slices.Contains(a.projectIDs[:i], p) {
				return nil, fmt.Errorf("--mintlify.project-id=%s is given twice", p)
			}
		}
		return a.projectIDs, nil
	}
	env := os.Getenv("MINTLIFY_PROJECT_ID")
	if strings.TrimSpace(env) == "" {
		return nil, nil
	}
	var out []string
	for i, part := range strings.Split(env, ",") {
		ids := strings.Fields(part)
		if len(ids) == 0 {
			return nil, fmt.Errorf("MINTLIFY_PROJECT_ID=%q: item %d is empty (two commas in a row, or an unset shell variable?); list the project ids separated by commas", env, i+1)
		}
		for _, p := range ids {
			if err := checkProjectID(p); err != nil {
				return nil, fmt.Errorf("MINTLIFY_PROJECT_ID: %q: %v", p, err)
			}
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// checkProjectID refuses what cannot be a project id: it becomes one
// segment of the API's URL paths.
func checkProjectID(p string) error {
	if len(p) > 200 {
		return errors.New("longer than 200 characters; not a project id")
	}
	// IsPrint refuses control characters and DEL, not the space.
	if strings.ContainsFunc(p, func(r rune) bool { return r == ' ' || strings.ContainsRune("/?#%", r) || !unicode.IsPrint(r) }) {
		return errors.New("holds a space, a slash or another character no project id has")
	}
	if p == "." || p == ".." {
		return errors.New("not a project id")
	}
	return nil
}

func checkAPIURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return errors.New("not an address; want https://api.mintlify.com or http://HOST:PORT")
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("want an http:// or https:// address")
	case u.Host == "" || u.Hostname() == "":
		return errors.New("no host in the address")
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return errors.New("want a base address without query, fragment or user")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return errors.New("the port must be from 1 to 65535")
		}
	}
	return nil
}

// purpose is the command a connection is for: the demo's fake differs.
type purpose int

const (
	forServe    purpose = iota
	forAgent            // the demo's jobs are in its first project
	forBackfill         // the demo's fake has no hourly limit for backfill
)

// connection is where a command's API calls go: the API the flags name,
// or, with --demo, a fake started for this command alone.
type connection struct {
	apiURL   string
	key      client.KeySource
	projects []string
	demo     *demo.Server // nil without --demo
	stream   *demo.Stream // the demo's event stream, nil without
}

// connect returns the connection of API flags that check accepted; with
// neither a key nor a project it reports both. Close it when done.
func (a *apiFlags) connect(withDemo bool, p purpose, logger log.Logger) (connection, error) {
	c := connection{apiURL: a.url}
	var err, perr error
	c.projects, perr = a.projects()
	switch {
	case withDemo:
		var opts []mintlifytest.Option
		if p == forBackfill {
			opts = append(opts, mintlifytest.WithRateLimit(0))
		}
		c.demo = demo.Start(time.Now, opts...)
		c.apiURL = c.demo.URL()
		c.key, err = client.StaticKey(c.demo.Key)
		if len(c.projects) == 0 {
			c.projects = c.demo.ProjectIDs
			if p == forAgent {
				c.projects = c.projects[:1]
			}
		}
	case a.keyFile != "":
		fk, ferr := client.NewFileKey(a.keyFile)
		if ferr != nil {
			err = fmt.Errorf("--mintlify.api-key-file: %w", ferr)
		} else if c.key = fk; fk.Status().WorldReadable {
			level.Warn(logger).Log("msg", "the API key file is readable by every user of this machine; restrict it (chmod 600)", "file", fk.Path())
		}
	default:
		// The variable's name with the reason, unless the reason already
		// names it (no key at all).
		if c.key, err = client.StaticKey(os.Getenv("MINTLIFY_API_KEY")); err != nil && !errors.Is(err, client.ErrNoKey) {
			err = fmt.Errorf("MINTLIFY_API_KEY: %w", err)
		}
	}
	if perr == nil && len(c.projects) == 0 {
		perr = errors.New("no project: set --mintlify.project-id (or MINTLIFY_PROJECT_ID); the project id is on the API keys page of the Mintlify dashboard")
	}
	if err != nil && perr != nil {
		err = fmt.Errorf("%v; and %v", err, perr)
	}
	if err = cmp.Or(err, perr); err != nil {
		c.close()
		return connection{}, err
	}
	if !withDemo && cleartextRemote(a.url) {
		level.Warn(logger).Log("msg", "--mintlify.api-url is plain http to a host that is not this machine: the API key travels in clear text; use https", "api_url", a.url)
	}
	return c, nil
}

// cleartextRemote reports whether the API address is plain http to a host
// other than a loopback address (where a test fake or a local proxy is).
func cleartextRemote(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "http" {
		return false
	}
	host := u.Hostname()
	ip := net.ParseIP(host)
	return !strings.EqualFold(host, "localhost") && (ip == nil || !ip.IsLoopback())
}

func (c connection) client(timeout time.Duration, hooks client.Hooks) (*client.Client, error) {
	cl, err := client.New(client.Config{BaseURL: c.apiURL, Key: c.key, Timeout: timeout, UserAgent: userAgent(), Hooks: hooks})
	if err != nil {
		return nil, fmt.Errorf("--mintlify.api-url: %w", err)
	}
	return cl, nil
}

func (c connection) close() {
	if c.stream != nil {
		c.stream.Close()
	}
	if c.demo != nil {
		c.demo.Close()
	}
}

// userAgent is the exporter's User-Agent: name/version, as every
// Prometheus component sends it.
func userAgent() string { return version.ComponentUserAgent(exporterName) }
