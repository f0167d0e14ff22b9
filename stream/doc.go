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
//
// # Reading each object once
//
// Object names sort by time but their format is not published, so they are
// never parsed. The source remembers every key it read (or skipped) whose
// first sight is younger than LookBack; a poll lists from the checkpoint
// (paging by 1000 keys until a short page) and reads every listed key it
// does not remember. A remembered key older than LookBack is forgotten once
// every key below it is too, and the checkpoint moves up to it: List then
// starts after it. A key whose read failed holds the checkpoint below it
// until it is read, or skipped after 3 failed polls.
//
// What is missed: an object written with a key below the checkpoint, that
// is, one that appears more than LookBack after the objects around it. It
// cannot be seen without listing the whole bucket, and is not counted
// anywhere. On a first start (no snapshot) only objects modified within
// LookBack are read; the older ones are left unread, with one log line.
//
// # Duplicates
//
// Each event id (the UUID's 16 bytes, or a 128-bit FNV hash of another form)
// is remembered for LookBack plus two poll intervals after it arrived, which
// covers an object re-delivered within the look-back. At 10 million events a
// day and the default 1 h look-back that is about 430,000 ids (about 20 MB).
// The set is capped at 4 million ids: past that the oldest are forgotten
// first, and a duplicate of a forgotten id (or one that arrives later than
// the id's time) is counted twice.
//
// # Bounds of the series
//
// Per project, the first MaxPaths paths (by views or feedback), TopReferrers referrer hosts, 200
// event types, 200 tools/actions/feedback kinds and 100 search terms get
// their own series, which they keep for good (across restarts too); later
// ones count under "other". So a counter never moves from one series to
// another and never decreases; the price is that a path that becomes
// popular after the cap is full counts as "other". Unmapped subdomains
// become their own project up to 100, then project="other". Visitor
// sketches are kept for the site and for the 100 paths with the most views
// (re-ranked every poll; a path that enters the top starts its sketches
// then).
package stream
