package collector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// KeyFile exports the state of --mintlify.api-key-file: a rotated file that
// cannot be used leaves the previous key in use until it expires.
type KeyFile struct {
	key      *client.FileKey
	ok       *prometheus.Desc
	failures *prometheus.Desc
}

// NewKeyFile returns the collector of k's state.
func NewKeyFile(k *client.FileKey) *KeyFile {
	return &KeyFile{
		key: k,
		ok: prometheus.NewDesc("mintlify_api_key_file_ok",
			"1 when the API key in use is the key file's current content, else 0.",
			nil, nil),
		failures: prometheus.NewDesc("mintlify_api_key_file_reload_failures_total",
			"Times the changed API key file could not be used, once per distinct reason.",
			nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *KeyFile) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.ok
	ch <- c.failures
}

// Collect implements prometheus.Collector; it calls Key first so a scrape
// sees a rotation even when no request was sent since.
func (c *KeyFile) Collect(ch chan<- prometheus.Metric) {
	c.key.Key() //nolint:errcheck // FileKey.Key never fails once created
	st := c.key.Status()
	ok := 1.0
	if st.LastError != nil {
		ok = 0
	}
	ch <- prometheus.MustNewConstMetric(c.ok, prometheus.GaugeValue, ok)
	ch <- prometheus.MustNewConstMetric(c.failures, prometheus.CounterValue, float64(st.Failures))
}
