// Package mintlifytest is an in-process fake of Mintlify's REST API, in the
// spirit of net/http/httptest. Tests, benchmarks and the exporter's --demo
// mode use it in place of https://api.mintlify.com.
//
// It serves, strictly and with the API's own JSON:
//
//	GET  /v1/analytics/{projectId}/visitors      unique visitors export (offset pages)
//	GET  /v1/analytics/{projectId}/views         page views export (offset pages)
//	GET  /v1/analytics/{projectId}/assistant/caller-stats  assistant queries by caller
//	GET  /v1/analytics/{projectId}/feedback/by-page        feedback per page (one page)
//	GET  /v1/analytics/{projectId}/searches      search terms (opaque cursor)
//	GET  /v1/analytics/{projectId}/assistant     conversation turns (ULID cursor)
//	GET  /v2/agent/{projectId}/job/{id}          get agent job
//	POST /v2/agent/{projectId}/job/{id}/message  send a follow-up message
//	GET  /v1/agent/{projectId}/jobs              deprecated job listing (skip, take)
//	POST /v2/agent/{projectId}/job               create a job
//
// The routes are the client's endpoint table (client.Endpoints), and so
// are the endpoint names of Fault.Endpoint and CountRequests. An analytics
// endpoint's handler registers itself with handleAnalytics from its file's
// init; a route of the table with no handler answers 404.
//
// Requests need "Authorization: Bearer <key>" with an accepted admin key
// (DefaultKey unless WithKeys says otherwise); a missing, malformed,
// unknown or revoked key gets 401 {"error": "..."}. Query parameters are
// validated as the API validates them (dates as YYYY-MM-DD or RFC 3339,
// dateFrom not after dateTo; limit 1..250 and offset >= 0 for visitors and
// views; limit 1..100 and no offset or cursor for feedback by page, whose
// source and status filters are checked; limit 1..100 and a cursor it made
// for searches; limit 1..1000 and a ULID cursor for conversations) and
// refused with 400 {"error": "Invalid query parameters", "details":
// [{"message": ...}]}.
// Every answer is application/json, unknown routes included (404, or 405
// for a wrong method).
//
// # The event stream
//
// S3 is a second fake: an S3-compatible server for the Enterprise event
// stream (path-style ListObjectsV2, GetObject, PutObject, DeleteObject,
// HeadBucket), with faults (Throttle, VanishAfterList). StreamWriter
// writes the vendor's newline-delimited JSON objects, and what goes wrong
// with them, to a Putter (*S3, or s3sdk.NewPutter for any S3-compatible
// server such as versitygw), and Expect returns the exact counts a correct
// reader reaches.
//
// # Use in a test
//
//	now := time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)
//	srv := mintlifytest.NewServer(
//		mintlifytest.WithClock(func() time.Time { return now }),
//		mintlifytest.WithProject("proj", mintlifytest.Generate(mintlifytest.GenerateOptions{
//			Seed: 1, Paths: 1000, Days: 30, End: now,
//		})),
//	)
//	defer srv.Close()
//	// point the code under test at srv.URL() with mintlifytest.DefaultKey, then
//	// compare what it got with the expected answer:
//	totals, rows := srv.Visitors("proj", from, to)
//
// The other truth accessors are Views, CallerStats, FeedbackByPage (every
// page, uncut), Searches (every term and totalSearches), Conversations
// (turns counted by response type and resolution) and ConversationTurns;
// they read dates as the endpoints do (dateTo exclusive).
//
// Data is programmed with a Dataset (Set, SetViews, SetFeedback per day and
// path; SetCallerStats and SetSearch per day; AddTurn; or Generate for
// synthetic data with every signal) and SetProject; jobs with AddJob, whose
// status follows the clock (JobSpec.RunFor). Misbehaviour is programmed
// with AddFault, on any endpoint: error statuses, 429 with or without
// Retry-After, raw bodies, delays, truncated bodies, reset connections,
// endless or empty pages, duplicated rows, counts written 12.0 or 1.2e+01
// (CountFormat), a malformed row (BadRow: empty path, negative or missing
// count, not an object), site totals of any value (Totals), a missing or
// repeated cursor, and arbitrary edits of the JSON. WithRateLimit enables
// the organization-wide analytics limit, shared by every analytics
// endpoint; WithoutRetryAfter takes Retry-After off its 429 answers.
// Requests returns the log of what the server received.
//
// # Assumptions: where the fake chooses
//
// The real API's behaviour is only partly published; where it is not, the
// fake chooses, and these choices are part of its contract. None of them is
// promised by the spec, so code under test must not rely on them:
//
//   - An unknown project is answered 404 by every analytics endpoint.
//
//   - Every 429 of the limiter carries Retry-After, unless
//     WithoutRetryAfter (the spec says it may be absent).
//
//   - Without dateFrom the data starts at its first day; without dateTo it
//     ends with today (both undocumented).
//
//   - Visitor totals satisfy max(human, ai) <= total <= human+ai; views,
//     caller stats and feedback have total >= the sum of their parts.
//
//   - Orderings: visitors, views and feedback by page by total descending
//     then path; searches by hits descending (published) then term;
//     conversations newest first (by ULID, descending), a cursor being the
//     last turn's id.
//
//   - ctr is clicks/hits of the range, in 0..1; lastSearchedAt is a
//     date-time of the last day the term was searched; topClickedPage is
//     null when the term had no click.
//
//   - Feedback filters (source, status) are validated but not applied.
//
//   - A searches cursor is base64 of an offset; conversation ids are ULIDs.
//
//   - Per-path counts of a date range are the sums of the path's daily
//     counts, or, for unique visitors after Dataset.SetReturning(r), that
//     sum divided by 1 + r·(n−1) over n days (returning visitors counted
//     once; the real overlap is not published). Site totals are not the sum over paths: each of human, ai and
//     total is floor(3/5 of the sum over paths) but at least the largest
//     path's value, and total is then clamped into [max(human, ai),
//     human+ai]. With two or more paths with visitors every site figure is
//     smaller than the sum over paths.
//
//   - Dates given as RFC 3339 date-times are reduced to their UTC date, for
//     dateTo too (data is kept per UTC day). A missing dateFrom means from
//     the first day of data; a missing dateTo means up to and including
//     today by the server's clock.
//
//   - Paths without visitors in the range are left out. Rows are sorted by
//     total descending, then path ascending, which keeps pages stable; the
//     API promises no order, and WithUnorderedPaths serves them in a fixed
//     shuffled order instead.
//
//   - Prompts are limited to 10,000 Unicode code points (the real limit is
//     not published) and the message body must be sent as
//     application/json.
//
//   - The analytics limiter (off unless enabled) counts authorized requests
//     to any analytics endpoint, whatever their answer, in a sliding hour of
//     the server's clock; refused requests, and requests answered by a
//     fault's Status or Body, do not count. Create and
//     send-message are always limited to 100 accepted uses per project per
//     hour. Retry-After is the number of seconds, rounded up, until the
//     oldest counted request leaves the window.
//
//   - Keys with the assistant (mint_dsc_) or index (mint_us_) prefix are
//     answered 403 even when accepted; no other check is made on a key's
//     form. Only the exact scheme "Bearer " is accepted.
//
//   - A 401 is a missing, unknown or revoked key. A 403 (after the key is
//     known) is an address outside SetAllowlist's prefixes, or a key that
//     SetKeyScopes limited to read sending a POST (or to write sending a
//     GET). The key is checked before the allowlist; the error messages
//     are the fake's own.
//
//   - Job times are sent as RFC 3339 in UTC with milliseconds; ref, prLink
//     and archivedAt are sent as null when unset. JobSpec.Omit leaves any
//     field out and JobSpec.NullCreatedAt sends createdAt as null (the
//     schema has no required field); nothing else is ever null. A message
//     moves a job of any status back to active (prLink and archivedAt null
//     again). Pull request links are numbered by the server from 1.
//
//   - A created job (POST /v2/agent/{projectId}/job, 201) gets the id
//     job_NNNNNNNN (a counter of the server), the default repository, the
//     default model, no ref, and stays active until SetJobStatus or a
//     fault changes it; its prompt is its first message (Messages). The
//     id format, and that the project's repository is used, are
//     assumptions: the API takes only a prompt.
//
//   - The deprecated v1 listing is paged as documented: skip >= 0 (default
//     0) and take 1..100 (default 12), anything else 400 {"error": ...};
//     newest first, no hasMore. It leaves out archived jobs. Active jobs
//     are not haulted with haultReason "processing"; completed ones have
//     "completed", or "interrupted" after InterruptJob; failed ones
//     JobSpec.HaultReason, "error" by default; any other status is sent as
//     the haultReason. haultReason is never null; todos is always [].
//
//   - Assumptions where the API says nothing: an interrupted job reads as
//     "completed" in v2, and a session's sessionId is the v2 job id unless
//     JobSpec.SessionID says otherwise.
//
//   - An unknown project is answered 404 {"error": "project not found"} by
//     the analytics endpoints and the listing; the job endpoints answer 404
//     {"error": "Job not found"}. A project exists once WithProject,
//     SetProject or AddJob named it.
//
//   - S3 fake: SigV4 Authorization headers are checked for their form
//     (AWS4-HMAC-SHA256, Credential=KEY/DATE/REGION/s3/aws4_request,
//     SignedHeaders, a 64-hex Signature) and, with SetAccessKey and
//     SetRegion, for the access key id and region; the signature itself is
//     never verified, so any secret works. No header: 403 AccessDenied;
//     another form: 400 AuthorizationHeaderMalformed; another access key:
//     403 AccessDenied (real S3 says InvalidAccessKeyId for an unknown
//     key); another region: 400 AuthorizationHeaderMalformed with Region.
//
//   - S3 fake: one bucket; path-style only; keys list in byte order;
//     Last-Modified has whole seconds; continuation tokens are the fake's
//     own (base64 of the last key); max-keys above 1000 is 1000; with a
//     continuation token start-after is ignored (as S3 documents). What it
//     does not implement (ListObjects v1, delimiter, multipart, ACLs,
//     tagging, copies) answers 501 NotImplemented; another bucket, 404
//     NoSuchBucket. An object put without Content-Type reads
//     binary/octet-stream.
//     aws-chunked upload bodies are decoded; their checksums are not
//     verified.
//
//   - StreamWriter: object names are prefix + a UTC time
//     (20060102T150405.000Z, the created_at of the object's last event) +
//     "-" + 8 random hex digits + ".jsonl"; the vendor's format is not
//     published, only that names sort by time. Event type names beyond
//     docs.content.view, property keys (query, tool, action) and the
//     feedback kinds are the assumed names of stream/event-map.yml; the
//     user agents are chosen so that stream/traffic-rules.yml classifies
//     them unambiguously; a visitor keeps one anon_id and/or user_id.
package mintlifytest
