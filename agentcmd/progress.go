package agentcmd

import (
	"fmt"
	"io"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// progress shows a job's progress on standard error (what the API sent is
// passed through ErrorLine: no control character reaches the terminal): on a terminal one
// status line rewritten in place ("job ID: active (1m20s)"), otherwise one
// line per status change and, while it does not change, one every
// progressEvery, so a log shows the wait goes on. A pull request link is
// printed on its own line once when it appears.
type progress struct {
	w     io.Writer
	tty   bool
	jobID string
	now   func() time.Time
	start time.Time

	status  client.JobStatus
	printed time.Time // when the last line was printed, off a terminal
	shown   bool      // a status was shown
	drawn   bool      // the terminal line holds a status line
	pr      string    // the pull request link printed, "" before
}

// progressEvery is how often, off a terminal, the status is printed again
// while it does not change.
const progressEvery = 30 * time.Second

// clearLine returns to the start of the line and clears it.
const clearLine = "\r\x1b[K"

// show reports the job. fromRead is false for the job the message call
// returned, whose pull request link may predate the message.
func (p *progress) show(job *client.Job, fromRead bool) {
	changed := !p.shown || job.Status != p.status
	p.status, p.shown = job.Status, true
	if p.tty {
		p.redraw()
	} else if changed || p.now().Sub(p.printed) >= progressEvery {
		fmt.Fprintln(p.w, p.line())
		p.printed = p.now()
	}
	if fromRead && job.PRLink != nil && *job.PRLink != "" && *job.PRLink != p.pr {
		p.pr = *job.PRLink
		p.clear()
		fmt.Fprintf(p.w, "pull request: %s\n", ErrorLine(p.pr))
		if p.tty {
			p.redraw()
		}
	}
}

// line is the status line.
func (p *progress) line() string {
	return ErrorLine(fmt.Sprintf("job %s: %s (%s)", p.jobID, p.status, p.now().Sub(p.start).Round(time.Second)))
}

// redraw rewrites the status line on a terminal.
func (p *progress) redraw() {
	if !p.tty || !p.shown {
		return
	}
	fmt.Fprint(p.w, clearLine+p.line())
	p.drawn = true
}

// clear empties the terminal line before other output.
func (p *progress) clear() {
	if p.drawn {
		fmt.Fprint(p.w, clearLine)
		p.drawn = false
	}
}

// note prints a message on its own line, keeping the status line below it.
func (p *progress) note(msg string) {
	p.clear()
	fmt.Fprintln(p.w, msg)
	p.redraw()
}

// done ends the status line so later output starts on a new line.
func (p *progress) done() {
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}
