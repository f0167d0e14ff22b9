// Package collector holds the exporter's analytics sources, one file per
// source (visitors.go, views.go, assistant.go, feedback.go, searches.go,
// conversations.go), each with its flag's SourceInfo, its families, its
// engine.Source methods and, for additive sources, its engine.Summer
// methods. collector.go lists the sources in exposition order and builds
// them; paths.go holds what the per-page sources share; keyfile.go exports
// the state of the API key file.
//
// A new source is its file here, its client method and endpoint (defined
// with its budget class), and two lines in collector.go: its client
// interface in Client and its SourceInfo in Sources. A scrape never calls
// the API: sources fetch only when the engine asks them to.
package collector
