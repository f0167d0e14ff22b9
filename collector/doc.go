// Package collector holds the exporter's analytics sources, one file per
// source (paths.go: visitors and views, one source with two descriptors;
// assistant.go, feedback.go, searches.go, conversations.go), each with its
// Descriptor, its families, its engine.Source methods and, for additive
// sources, its derived.Summer methods. collector.go lists the descriptors
// in exposition order (Sources) and builds the sources; keyfile.go exports
// the state of the API key file.
//
// A Descriptor is all the rest of the exporter knows of a source: the
// --collector.<name> flag, the help and landing-page lists and the
// README's cost table (checked by a test) come from it, and its Endpoint
// is the client's, whose route the fake API serves. A new analytics source
// is its file here (its descriptor, added to Sources with register, with
// client.Analytics defining its endpoint, read with GetAnalytics into
// typed structs), a handler in client/mintlifytest, a README row and a
// test. A scrape never calls the API: sources fetch only when the engine
// asks.
package collector
