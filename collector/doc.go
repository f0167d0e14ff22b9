// Package collector holds the exporter's analytics sources, one file per
// source, each with its Descriptor, its families and its engine.Source
// methods; an additive source sets base's additive, whose Sum adds up every
// family, or has a Sum of its own. collector.go lists the descriptors in
// exposition order (Sources) and builds the sources.
//
// A new analytics source is its file here (its descriptor, added to Sources,
// reading its client.Analytics endpoint with a method of client.Client), a
// handler in client/mintlifytest, a README row and a test. A scrape never
// calls the API: sources fetch only when the engine asks.
package collector
