// Package stream counts the analytics events a Mintlify Enterprise organization
// streams into its own Amazon S3 bucket: it lists new objects from a checkpoint
// (with a look-back for late ones), reads them as newline-delimited JSON, drops
// duplicate events by event_id, counts every event once, keeps HyperLogLog
// sketches of visitors per UTC day, and exposes the counts as Prometheus
// metrics. Its state (checkpoint, recent keys and ids, counters, sketches)
// survives restarts through Snapshot and Restore. Personal data in the events
// (ip, user, session and anonymous ids, user agents, assistant and feedback
// text) is read only to classify and count: it never reaches a metric, a log
// line, Status or the Snapshot.
//
// The bucket is reached through a Store; stream/s3store implements it with
// the AWS SDK.
package stream
