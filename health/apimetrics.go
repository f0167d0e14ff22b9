package health

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// APIMetrics counts and times every upstream attempt (the client's Observe hook).
type APIMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewAPIMetrics returns the metrics, registered with reg, every endpoint's
// histogram present at 0.
func NewAPIMetrics(reg prometheus.Registerer) *APIMetrics {
	m := &APIMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mintlify_api_requests_total",
			Help: "Requests sent to the Mintlify API, by endpoint and answer.",
		}, []string{"endpoint", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mintlify_api_request_duration_seconds",
			Help:    "Duration of requests to the Mintlify API, by endpoint.",
			Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"endpoint"}),
	}
	for _, e := range client.Endpoints {
		m.duration.WithLabelValues(e.String())
	}
	reg.MustRegister(m.requests, m.duration)
	return m
}

// Observe records one attempt.
func (m *APIMetrics) Observe(a client.Attempt) {
	m.requests.WithLabelValues(a.Endpoint.String(), a.Code()).Inc()
	m.duration.WithLabelValues(a.Endpoint.String()).Observe(a.Duration.Seconds())
}
