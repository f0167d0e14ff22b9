package collector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// KeyFile returns the collectors of --mintlify.api-key-file's state: a
// rotated file that cannot be used leaves the previous key in use until it
// expires. Each calls Key first, so a scrape sees a rotation even when no
// request was sent since.
func KeyFile(k *client.FileKey) []prometheus.Collector {
	status := func() client.KeyFileStatus {
		k.Key() //nolint:errcheck // FileKey.Key never fails once created
		return k.Status()
	}
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "mintlify_api_key_file_ok",
			Help: "1 when the API key in use is the key file's current content, else 0."},
			func() float64 {
				if status().LastError != nil {
					return 0
				}
				return 1
			}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "mintlify_api_key_file_reload_failures_total",
			Help: "Times the changed API key file could not be used, once per distinct reason."},
			func() float64 { return float64(status().Failures) }),
	}
}
