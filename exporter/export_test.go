package exporter

import (
	"net/http"

	"github.com/mintlify-exporter/mintlify_exporter/engine"
	"github.com/mintlify-exporter/mintlify_exporter/stream"
)

// Handler serves the exporter's HTTP endpoints.
func (x *Exporter) Handler() http.Handler { return x.handler }

// Engine returns the analytics engine, nil when every source is off.
func (x *Exporter) Engine() *engine.Engine { return x.engine }

// Stream returns the event-stream source, nil when it is off.
func (x *Exporter) Stream() *stream.Source { return x.stream }
