package health

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// ObserveAPI returns the client's Observe hook, which counts and times every
// upstream attempt, its metrics registered with reg, every endpoint's
// histogram present at 0.
func ObserveAPI(reg prometheus.Registerer) func(client.Attempt) {
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mintlify_api_requests_total",
		Help: "Requests sent to the Mintlify API, by endpoint and answer.",
	}, []string{"endpoint", "code"})
	duration := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "mintlify_api_request_duration_seconds",
		Help:    "Duration of requests to the Mintlify API, by endpoint.",
		Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"endpoint"})
	for _, e := range client.Endpoints {
		duration.WithLabelValues(e.String())
	}
	reg.MustRegister(requests, duration)
	return func(a client.Attempt) {
		requests.WithLabelValues(a.Endpoint.String(), a.Code()).Inc()
		duration.WithLabelValues(a.Endpoint.String()).Observe(a.Duration.Seconds())
	}
}
