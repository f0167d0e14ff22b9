package cli

// The backfill command with --stream.s3.bucket: history from the event
// stream instead of the API.

import (
	"context"
	"fmt"
	"io"

	"github.com/go-kit/log"

	"github.com/mintlify-exporter/mintlify_exporter/backfill"
	"github.com/mintlify-exporter/mintlify_exporter/stream"
	"github.com/mintlify-exporter/mintlify_exporter/stream/s3store"
)

// runStream writes the event stream's counters over --from..--to to
// --output; it sends no API request, so it needs no key.
func (b *backfillCommand) runStream(ctx context.Context, f *flags, logger log.Logger, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintln(stderr, errorPrefix+err.Error())
		return backfill.ExitError
	}
	for flag, set := range map[string]bool{
		"--remote-write.journal": b.rwJournalSet, "--backfill.pages": b.pages, "--resume": b.resume,
		"--dry-run": b.dryRun, "--demo": f.demo,
	} {
		if set {
			return fail(fmt.Errorf("%s does not apply to a backfill from the event stream (--stream.s3.bucket): it reads the bucket and writes in one pass, with no journal: a failed run is run again whole", flag))
		}
	}
	sc, err := f.stream.config(false)
	if err != nil {
		return fail(err)
	}
	cfg := backfill.StreamConfig{Output: b.output, Force: b.force,
		Protected: map[string]string{"--mintlify.api-key-file": f.api.keyFile, "--cache.file": f.cacheFile, "--jobs.file": f.jobs.file,
			"--stream.traffic-rules": sc.TrafficRules, "--stream.event-map": sc.EventMap},
		Out: stdout}
	if cfg.From, err = parseFlagDate("--from", b.from); err != nil {
		return fail(err)
	}
	if cfg.To, err = parseFlagDate("--to", b.to); err != nil {
		return fail(err)
	}
	if cfg.Labels, err = backfill.MergeLabels(b.labels); err != nil {
		return fail(err)
	}
	switch {
	case b.rwURL != "":
		if cfg.RemoteWrite, err = backfill.NewRemoteWriter(b.rwURL, b.rwConfig, userAgent()); err != nil {
			return fail(err)
		}
	case b.rwConfig != "":
		return fail(fmt.Errorf("--remote-write.config=%s is set without --remote-write.url", b.rwConfig))
	}
	store, err := s3store.New(ctx, s3store.Options{Bucket: sc.Bucket, Region: sc.Region, Endpoint: sc.Endpoint,
		AccessKeyID: sc.AccessKeyID, SecretAccessKey: sc.SecretAccessKey})
	if err != nil {
		return fail(err)
	}
	cfg.Stream = stream.Config{Store: store, Prefix: sc.Prefix, Projects: sc.Projects,
		MaxPaths: sc.MaxPaths, TopReferrers: sc.TopReferrers, SearchTerms: sc.SearchTerms,
		TrafficRules: sc.TrafficRules, EventMap: sc.EventMap, Logger: log.With(logger, "component", "stream")}
	if err := backfill.RunStream(ctx, cfg); err != nil {
		return fail(err)
	}
	return backfill.ExitOK
}
