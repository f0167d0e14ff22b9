package cli

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/alecthomas/kingpin/v2"

	"github.com/mintlify-exporter/mintlify_exporter/demo"
	"github.com/mintlify-exporter/mintlify_exporter/exporter"
)

// streamFlags are the --stream.* flags of the event-stream source (the
// organization's analytics events in its own S3 bucket, docs/stream.md).
type streamFlags struct {
	bucket, prefix, region, endpoint string
	pollInterval, lookBack           time.Duration
	projects                         []string
	maxPaths, topReferrers           int
	searchTerms, keepREST            bool
	trafficRules, eventMap           string
	set                              map[string]*bool // which were given, by flag name
}

// Bounds of the stream's flags: beyond them a value is a typo.
const (
	minStreamPoll    = time.Second
	maxStreamPoll    = time.Hour
	maxStreamLook    = 7 * 24 * time.Hour
	maxStreamPaths   = 100000
	maxStreamReferrs = 1000
	// maxStreamFileBytes bounds the traffic-rules and event-map files.
	maxStreamFileBytes = 1 << 20
)

func (s *streamFlags) register(app *kingpin.Application) {
	s.set = map[string]*bool{}
	flag := func(name, help string) *kingpin.FlagClause {
		c := app.Flag(name, help)
		s.set[name] = new(bool)
		return c.IsSetByUser(s.set[name])
	}
	flag("stream.s3.bucket", "S3 bucket the organization streams its analytics events to (Enterprise); turns the event-stream source on. Credentials come from the AWS chain (docs/stream.md).").PlaceHolder("BUCKET").StringVar(&s.bucket)
	flag("stream.s3.prefix", "Key prefix set in the vendor's streaming settings.").PlaceHolder("PREFIX").StringVar(&s.prefix)
	flag("stream.s3.region", "Region of the bucket. Default: the AWS chain's (AWS_REGION, the profile).").PlaceHolder("REGION").StringVar(&s.region)
	flag("stream.s3.endpoint", "S3-compatible endpoint URL, addressed path-style; default AWS.").PlaceHolder("URL").StringVar(&s.endpoint)
	flag("stream.poll-interval", "How often new objects are listed.").Default("30s").DurationVar(&s.pollInterval)
	flag("stream.look-back", "How far behind the newest object read late objects are still looked for.").Default("1h").DurationVar(&s.lookBack)
	flag("stream.project", "SUBDOMAIN=PROJECT_ID: the project label of a deployment's events; repeatable. An unmapped subdomain keeps its subdomain as label.").PlaceHolder("SUBDOMAIN=PROJECT_ID").StringsVar(&s.projects)
	intVar(flag("stream.max-paths", "Per project, the paths with their own series (by views); the rest are counted under path=\"other\".").Default("5000"), &s.maxPaths)
	intVar(flag("stream.top-referrers", "Per project, the referrer hosts with their own series; the rest are counted under referrer=\"other\".").Default("50"), &s.topReferrers)
	flag("stream.search-terms", "Also export search terms (text typed by the public: mind cardinality and personal data).").Default("false").BoolVar(&s.searchTerms)
	flag("stream.keep-rest", "Also read the REST views, feedback and searches of the projects --stream.project maps (by default the stream replaces them and their requests go to the other sources).").Default("false").BoolVar(&s.keepREST)
	flag("stream.traffic-rules", "File of user-agent rules that classify page views into traffic classes; default: the built-in rules.").PlaceHolder("FILE").StringVar(&s.trafficRules)
	flag("stream.event-map", "File mapping event types to the metric families; default: the built-in table.").PlaceHolder("FILE").StringVar(&s.eventMap)
}

// config checks the stream flags and returns the source's configuration;
// nil when --stream.s3.bucket is not given (then no other --stream.* flag
// may be). With the demo and no bucket, the configuration has no bucket
// yet: the demo's own S3 server fills it in (demoStream).
func (s *streamFlags) config(demo bool) (*exporter.StreamConfig, error) {
	if s.bucket == "" && !demo {
		if *s.set["stream.s3.bucket"] {
			return nil, errors.New("--stream.s3.bucket is empty (an unset shell variable?): give the bucket the organization streams to")
		}
		for _, name := range []string{"stream.s3.prefix", "stream.s3.region", "stream.s3.endpoint", "stream.poll-interval", "stream.look-back",
			"stream.project", "stream.max-paths", "stream.top-referrers", "stream.search-terms", "stream.keep-rest", "stream.traffic-rules", "stream.event-map"} {
			if *s.set[name] {
				return nil, fmt.Errorf("--%s is set but the event-stream source is off: add --stream.s3.bucket", name)
			}
		}
		return nil, nil
	}
	if s.bucket == "" && *s.set["stream.s3.bucket"] {
		return nil, errors.New("--stream.s3.bucket is empty (an unset shell variable?): give the bucket the organization streams to")
	}
	if err := checkBucket(s.bucket); s.bucket != "" && err != nil {
		return nil, fmt.Errorf("--stream.s3.bucket=%q: %v", s.bucket, err)
	}
	if strings.HasPrefix(s.prefix, "/") || !printable(s.prefix) || len(s.prefix) > 1000 {
		return nil, fmt.Errorf("--stream.s3.prefix=%q: want the key prefix as in the streaming settings, without a leading slash or control characters", s.prefix)
	}
	if s.region != "" && !regionLike(s.region) {
		return nil, fmt.Errorf("--stream.s3.region=%q: want a region name such as eu-west-1", s.region)
	}
	if s.endpoint != "" {
		if err := checkAPIURL(s.endpoint); err != nil {
			return nil, fmt.Errorf("--stream.s3.endpoint=%q: %v", s.endpoint, err)
		}
		if u, _ := url.Parse(s.endpoint); u.Path != "" && u.Path != "/" {
			return nil, fmt.Errorf("--stream.s3.endpoint=%q: want the server's address without a path (the bucket is --stream.s3.bucket)", s.endpoint)
		}
	}
	switch {
	case s.pollInterval < minStreamPoll || s.pollInterval > maxStreamPoll:
		return nil, fmt.Errorf("--stream.poll-interval must be from %s to %s, not %s", minStreamPoll, maxStreamPoll, s.pollInterval)
	case s.lookBack < 0 || s.lookBack > maxStreamLook:
		return nil, fmt.Errorf("--stream.look-back must be from 0 to %s, not %s", maxStreamLook, s.lookBack)
	case s.maxPaths < 1 || s.maxPaths > maxStreamPaths:
		return nil, fmt.Errorf("--stream.max-paths must be from 1 to %d, not %d", maxStreamPaths, s.maxPaths)
	case s.topReferrers < 1 || s.topReferrers > maxStreamReferrs:
		return nil, fmt.Errorf("--stream.top-referrers must be from 1 to %d, not %d", maxStreamReferrs, s.topReferrers)
	}
	projects, err := parseStreamProjects(s.projects)
	if err != nil {
		return nil, err
	}
	return &exporter.StreamConfig{
		Bucket: s.bucket, Prefix: s.prefix, Region: s.region, Endpoint: s.endpoint,
		PollInterval: s.pollInterval, LookBack: s.lookBack, Projects: projects,
		MaxPaths: s.maxPaths, TopReferrers: s.topReferrers, SearchTerms: s.searchTerms,
		TrafficRules: s.trafficRules, EventMap: s.eventMap, KeepREST: s.keepREST,
	}, nil
}

// parseStreamProjects reads the repeatable SUBDOMAIN=PROJECT_ID values.
func parseStreamProjects(values []string) (map[string]string, error) {
	out := map[string]string{}
	for _, v := range values {
		sub, id, ok := strings.Cut(v, "=")
		sub, id = strings.TrimSpace(sub), strings.TrimSpace(id)
		if !ok || sub == "" || id == "" {
			return nil, fmt.Errorf("--stream.project=%q: want SUBDOMAIN=PROJECT_ID, such as docs=proj_123", v)
		}
		if !printable(sub) || strings.ContainsAny(sub, " /") || len(sub) > 200 {
			return nil, fmt.Errorf("--stream.project=%q: %q is not a subdomain", v, sub)
		}
		if err := checkProjectID(id); err != nil {
			return nil, fmt.Errorf("--stream.project=%q: %v", v, err)
		}
		if looksLikeKey(id) {
			return nil, fmt.Errorf("--stream.project: a value looks like an admin API key (mint_...), not a project id; it would become a label")
		}
		if _, dup := out[sub]; dup {
			return nil, fmt.Errorf("--stream.project: subdomain %s is mapped twice; keep one", sub)
		}
		out[sub] = id
	}
	return out, nil
}

// checkBucket accepts S3 bucket names, leniently for S3-compatible servers:
// 3 to 255 characters, no slash, space or control character.
func checkBucket(b string) error {
	switch {
	case len(b) < 3 || len(b) > 255:
		return errors.New("a bucket name has 3 to 63 characters (S3-compatible servers: up to 255)")
	case strings.ContainsAny(b, "/ ") || !printable(b):
		return errors.New("a bucket name is only the name (no s3:// or slash, no space); the prefix goes in --stream.s3.prefix")
	case strings.HasPrefix(b, "arn:"):
		return errors.New("give the bucket's name, not its ARN")
	}
	return nil
}

// regionLike accepts what an AWS region name looks like (and the short
// names S3-compatible servers use): letters, digits and hyphens.
func regionLike(r string) bool {
	if len(r) > 50 {
		return false
	}
	for _, c := range r {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// printable reports whether s has no control or unprintable character.
func printable(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// streamOnly reports whether the event stream runs alone: a bucket is
// given but neither an API key nor a project (flags or environment), so
// the REST side (analytics sources, jobs) is off and needs no key.
func (f *flags) streamOnly() bool {
	return f.stream.bucket != "" && !f.demo && f.api.keyFile == "" && os.Getenv("MINTLIFY_API_KEY") == "" &&
		len(f.api.projectIDs) == 0 && strings.TrimSpace(os.Getenv("MINTLIFY_PROJECT_ID")) == ""
}

// checkStreamOnly refuses what the REST side would need in a stream-only
// configuration: a source or the job watcher turned on by hand.
func (f *flags) checkStreamOnly(jobs, remediation bool) error {
	need := "needs the Mintlify API: set MINTLIFY_API_KEY (or --mintlify.api-key-file) and --mintlify.project-id, or drop it to run the event stream alone"
	for name, set := range f.analytics.collectorSet {
		if *set && *f.analytics.collectors[name] {
			return fmt.Errorf("--collector.%s %s", name, need)
		}
	}
	switch {
	case remediation:
		return fmt.Errorf("--remediation.config %s", need)
	case jobs:
		return fmt.Errorf("--collector.jobs %s", need)
	}
	return nil
}

// demoPollInterval is the demo stream's poll interval unless
// --stream.poll-interval is given: its writer adds an object every few
// seconds.
const demoPollInterval = 5 * time.Second

// demoStream starts the demo's event stream (an S3 fake and a writer) and
// points sc at it, with static credentials: no AWS configuration is read
// for them.
func demoStream(sc *exporter.StreamConfig, pollSet *bool) *demo.Stream {
	s := demo.StartStream(time.Now)
	sc.Bucket, sc.Prefix, sc.Endpoint, sc.Region = demo.StreamBucket, demo.StreamPrefix, s.URL(), "us-east-1"
	sc.AccessKeyID, sc.SecretAccessKey = demo.StreamAccessKey, demo.StreamSecretKey
	if len(sc.Projects) == 0 {
		sc.Projects = demo.StreamProjects
	}
	// The demo shows both paths side by side: every dashboard has data.
	sc.KeepREST = true
	if !*pollSet {
		sc.PollInterval = demoPollInterval
	}
	return s
}
