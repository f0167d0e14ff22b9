package agentcmd

import (
	"fmt"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// progress is what the run has shown of the job's status on standard error:
// on a terminal one line rewritten in place, otherwise a line per change and
// one every progressEvery, so a log shows the wait goes on.
type progress struct {
	status  client.JobStatus
	printed time.Time // when the last line was printed, off a terminal
	shown   bool      // a status was shown
	drawn   bool      // the terminal line holds a status line
	pr      string    // the pull request link printed, "" before
}

// progressEvery is how often an unchanged status is printed off a terminal.
const progressEvery = 30 * time.Second

const clearLine = "\r\x1b[K"

// show reports the job. fromRead is false for the job the message call
// returned, whose pull request link may predate the message.
func (r *run) show(job *client.Job, fromRead bool) {
	changed := !r.shown || job.Status != r.status
	r.status, r.shown = job.Status, true
	if r.env.StderrIsTerminal {
		r.redraw()
	} else if changed || r.env.Now().Sub(r.printed) >= progressEvery {
		fmt.Fprintln(r.env.Stderr, r.line())
		r.printed = r.env.Now()
	}
	if fromRead && job.PRLink != nil && *job.PRLink != "" && *job.PRLink != r.pr {
		r.pr = *job.PRLink
		r.note("pull request: " + ErrorLine(r.pr))
	}
}

func (r *run) line() string {
	return ErrorLine(fmt.Sprintf("job %s: %s (%s)", r.job, r.status, r.env.Now().Sub(r.start).Round(time.Second)))
}

func (r *run) redraw() {
	if !r.env.StderrIsTerminal || !r.shown {
		return
	}
	fmt.Fprint(r.env.Stderr, clearLine+r.line())
	r.drawn = true
}

// note prints a message on its own line, keeping the status line below it.
func (r *run) note(msg string) {
	if r.drawn {
		fmt.Fprint(r.env.Stderr, clearLine)
	}
	fmt.Fprintln(r.env.Stderr, msg)
	r.redraw()
}

// done ends the status line.
func (r *run) done() {
	if r.drawn {
		fmt.Fprintln(r.env.Stderr)
		r.drawn = false
	}
}
