package client_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/client/mintlifytest"
)

func TestFileKeyRotationAgainstFake(t *testing.T) {
	const (
		oldKey = "mint_old00000000000000000000000000000"
		newKey = "mint_new11111111111111111111111111111"
	)
	path := filepath.Join(t.TempDir(), "key")
	writeKeyFile(t, path, oldKey+"\n", time.Unix(1_700_000_000, 0))
	fk, err := client.NewFileKey(path)
	if err != nil {
		t.Fatal(err)
	}
	h := jobHarness(t, func(c *client.Config) { c.Key = fk }, mintlifytest.WithKeys(oldKey))
	if err := opGetJob.run(h, context.Background()); err != nil {
		t.Fatal(err)
	}

	// The organization rotates: the fake accepts only the new key, the file
	// is rewritten, and the very next call uses it.
	h.srv.SetKeys(newKey)
	if err := opGetJob.run(h, context.Background()); !client.IsUnauthorized(err) {
		t.Fatalf("old key after rotation: %v, want 401", err)
	}
	writeKeyFile(t, path, newKey+"\n", time.Unix(1_700_000_100, 0))
	for _, o := range allOps {
		if err := o.run(h, context.Background()); err != nil {
			t.Errorf("%s after the file changed: %v", o.name, err)
		}
	}
	reqs := h.requests()
	if last := reqs[len(reqs)-1]; last.AuthHeader != "Bearer "+newKey {
		t.Error("the new key was not sent")
	}

	// The file breaks: the last good key goes on working.
	writeKeyFile(t, path, "garbage", time.Unix(1_700_000_200, 0))
	if err := opGetJob.run(h, context.Background()); err != nil {
		t.Errorf("after a broken rewrite: %v", err)
	}
	if fk.Status().LastError == nil {
		t.Error("Status().LastError nil after a broken rewrite")
	}
}

// badKeySource returns an error or an invalid key.
type badKeySource struct {
	key string
	err error
}

func (b badKeySource) Key() (string, error) { return b.key, b.err }

func TestKeySourceErrors(t *testing.T) {
	boom := errors.New("vault unreachable")
	for _, ks := range []badKeySource{{err: boom}, {key: ""}, {key: "mint_dsc_assistant"}} {
		h := jobHarness(t, func(c *client.Config) { c.Key = ks })
		err := opGetJob.run(h, context.Background())
		if err == nil || !strings.HasPrefix(err.Error(), "get_job: API key: ") {
			t.Errorf("key source %+v: error %v", ks, err)
		}
		if ks.err != nil && !errors.Is(err, boom) {
			t.Errorf("error %v does not wrap the source's error", err)
		}
		if n := len(h.requests()); n != 0 {
			t.Errorf("%d requests sent without a usable key", n)
		}
	}
}

func TestKeyNeverInErrors(t *testing.T) {
	const key = "mint_SECRETsecretSECRET9876543210zyxw"
	base := closedPort(t)
	var errs []error
	collect := func(err error) {
		if err == nil {
			t.Errorf("operation %d did not fail", len(errs))
		}
		errs = append(errs, err)
	}
	run := func(edit func(*client.Config), faults []mintlifytest.Fault, opts ...mintlifytest.Option) {
		h := jobHarness(t, func(c *client.Config) {
			c.Key = mustStatic(t, key)
			c.Timeout = 20 * time.Millisecond // every case fails; the timeout's only waits
			c.Retry.MaxAttempts = 2
			if edit != nil {
				edit(c)
			}
		}, append([]mintlifytest.Option{mintlifytest.WithKeys(key)}, opts...)...)
		for _, f := range faults {
			h.srv.AddFault(f)
		}
		for _, o := range allOps {
			collect(o.run(h, context.Background()))
		}
		_, err := walkVisitors(context.Background(), h.c, testProject, client.DateRange{}, client.WalkOptions{PageSize: 5})
		collect(err)
		backwards := client.DateRange{From: client.DateOf(testEnd), To: client.DateOf(testEnd).AddDays(-1)}
		_, err = h.c.PathsPage(context.Background(), client.EndpointVisitors, testProject, client.PathsQuery{Range: backwards})
		collect(err)
	}
	echo := fmt.Sprintf(`{"error":"bad token %s","details":[{"message":"Authorization: Bearer %s"}]}`, key, key)
	anyOff := mintlifytest.AnyOffset
	run(nil, nil, mintlifytest.WithKeys("mint_other0000000000000000000000000")) // 401 everywhere
	run(nil, []mintlifytest.Fault{{Offset: anyOff, Status: 403}})
	run(nil, []mintlifytest.Fault{{Offset: anyOff, Status: 500, Body: echo}})
	run(nil, []mintlifytest.Fault{{Offset: anyOff, Status: 400, Body: "plain text with the key " + key}})
	run(nil, []mintlifytest.Fault{{Offset: anyOff, Status: 429, RetryAfter: "5"}})
	run(nil, []mintlifytest.Fault{{Offset: anyOff, Reset: true}})
	run(nil, []mintlifytest.Fault{{Offset: anyOff, Truncate: true}})
	run(nil, []mintlifytest.Fault{{Offset: anyOff, Delay: time.Minute}})
	run(nil, []mintlifytest.Fault{{Offset: anyOff, Body: `{"id":"` + key + `","createdAt":"` + key + `","visitors":"` + key + `","allSessions":"` + key + `"}`}})
	run(nil, []mintlifytest.Fault{{Offset: anyOff, Mutate: func(b map[string]any) {
		b["status"], b["createdAt"], b["totals"], b["allSessions"] = 5, key, key, key
	}}})
	var most int64
	for _, e := range client.Endpoints {
		most = max(most, e.MaxBody())
	}
	run(nil, []mintlifytest.Fault{{Offset: anyOff, BodyBytes: make([]byte, most+1)}}) // too large everywhere
	run(func(c *client.Config) { c.BaseURL = base }, nil)
	run(func(c *client.Config) {
		c.Hooks.Allow = func(context.Context, client.Endpoint) error { return errors.New("no budget") }
	}, nil)

	for i, err := range errs {
		if err == nil {
			continue
		}
		for _, s := range []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err)} {
			if strings.Contains(s, key) || strings.Contains(s, "SECRETsecret") {
				t.Errorf("error %d shows the key: %s", i, s)
			}
		}
	}
	if len(errs) < 70 {
		t.Errorf("only %d errors checked", len(errs))
	}
}
