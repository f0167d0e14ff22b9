package agentcmd

import (
	"fmt"
	"io"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// progress shows a job's status on standard error: on a terminal one line
// rewritten in place, otherwise a line per change and one every
// progressEvery, so a log shows the wait goes on.
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

// progressEvery is how often an unchanged status is printed off a terminal.
const progressEvery = 30 * time.Second

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

func (p *progress) line() string {
	return ErrorLine(fmt.Sprintf("job %s: %s (%s)", p.jobID, p.status, p.now().Sub(p.start).Round(time.Second)))
}

func (p *progress) redraw() {
	if !p.tty || !p.shown {
		return
	}
	fmt.Fprint(p.w, clearLine+p.line())
	p.drawn = true
}

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

// done ends the status line.
func (p *progress) done() {
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}
